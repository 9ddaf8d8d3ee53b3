package io.github.ratelimit.benchmarks;

import java.time.Duration;

/**
 * A Redis server the benchmarks started themselves, the only kind they ever connect to: they flush it, reset its
 * statistics and fill it with keys, which no one else's server should suffer. {@link RedisServerProcess} in a run,
 * the test harness' embedded server in the smoke test.
 */
interface OwnRedis extends AutoCloseable {

	String host();

	int port();

	/**
	 * An outage: stops the server, waits, and starts it again on the same port, empty, returning once it answers.
	 * @param down how long it stays stopped
	 */
	void outage(Duration down);

	/**
	 * Stops the server.
	 */
	@Override
	void close();

}
