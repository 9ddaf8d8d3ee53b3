package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/**
 * What the benchmarks ask their own Redis about itself: command statistics, CPU, memory. It connects only to a
 * server the benchmarks started ({@link OwnRedis}), since it flushes it.
 */
final class RedisAdmin implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	RedisAdmin(OwnRedis server) {
		this.client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		this.connection = this.client.connect();
		this.redis = this.connection.sync();
	}

	String version() {
		return infoField("server", "redis_version");
	}

	/**
	 * Command statistics and CPU time now.
	 * @return the snapshot
	 */
	RedisStats stats() {
		return RedisStats.parse(this.redis.info("commandstats"), this.redis.info("cpu"));
	}

	/**
	 * Redis' clock, which its decisions read.
	 * @return {@code TIME} in milliseconds
	 */
	long timeMillis() {
		List<String> time = this.redis.time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	long usedMemory() {
		return Long.parseLong(infoField("memory", "used_memory"));
	}

	/**
	 * MEMORY USAGE of every key under a pattern, exactly (all samples).
	 * @param pattern the key pattern
	 * @return one size per key
	 */
	List<Long> memoryUsage(String pattern) {
		List<Long> sizes = new ArrayList<>();
		ScanIterator<String> keys = ScanIterator.scan(this.redis, ScanArgs.Builder.matches(pattern).limit(1000));
		while (keys.hasNext()) {
			String key = keys.next();
			sizes.add(this.redis.dispatch(CommandType.MEMORY, new IntegerOutput<>(StringCodec.UTF8),
					new CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(key).add("SAMPLES").add(0)));
		}
		return sizes;
	}

	String anyKey(String pattern) {
		ScanIterator<String> keys = ScanIterator.scan(this.redis, ScanArgs.Builder.matches(pattern));
		return keys.hasNext() ? keys.next() : "";
	}

	void flushAll() {
		this.redis.flushall();
	}

	private String infoField(String section, String field) {
		for (String line : this.redis.info(section).split("\r?\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1).trim();
			}
		}
		throw new IllegalStateException("INFO " + section + " has no " + field);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
