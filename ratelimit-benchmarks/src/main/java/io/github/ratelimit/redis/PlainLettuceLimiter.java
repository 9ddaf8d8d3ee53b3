package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.ratelimit.benchmarks.Contender;
import io.github.ratelimit.core.Policy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The floor our client code is compared against: plain Lettuce sending our very script. One shared
 * {@link StatefulRedisConnection}, its async API, EVALSHA with the backend's SHA-1, keys and arguments
 * ({@link OurScript}), every key and the arguments encoded once up front, the calling thread waiting on Lettuce's
 * future. What our backend spends beyond this is our client code's cost. Connected, with the script loaded, once
 * constructed.
 */
public final class PlainLettuceLimiter implements Contender {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final RedisClient client;

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisAsyncCommands<byte[], byte[]> commands;

	private final OurScript script;

	private final String sha1;

	private final byte[][][] keys;

	private final byte[][] arguments;

	/**
	 * Connects and loads the script.
	 * @param host the Redis host
	 * @param port its port
	 * @param keyPrefix the keys' namespace, as our backend is given it
	 * @param policy the policy whose script and arguments are sent
	 * @param clients the clients' keys, decided by index
	 */
	public PlainLettuceLimiter(String host, int port, String keyPrefix, Policy policy, String[] clients) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.async();
		this.script = new OurScript(keyPrefix, policy);
		this.sha1 = this.script.sha1();
		String loaded = this.connection.sync().scriptLoad(this.script.source());
		if (!this.sha1.equals(loaded)) {
			throw new IllegalStateException("Redis named the script " + loaded + ", the backend names it " + this.sha1);
		}
		this.keys = new byte[clients.length][][];
		for (int i = 0; i < clients.length; i++) {
			this.keys[i] = this.script.encodedKeys(clients[i]);
		}
		this.arguments = this.script.arguments();
	}

	@Override
	public boolean decide(int client) {
		RedisFuture<List<Object>> reply = this.commands.evalsha(this.sha1, ScriptOutputType.MULTI, this.keys[client],
				this.arguments);
		return ((Long) await(reply).get(0)) == 1L;
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

	@Override
	public String toString() {
		return "plain Lettuce EVALSHA " + this.sha1;
	}

	private static <T> T await(RedisFuture<T> reply) {
		try {
			return reply.get(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted waiting for EVALSHA", ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("EVALSHA failed: " + ex.getCause(), ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("EVALSHA took longer than " + TIMEOUT.toSeconds() + " s", ex);
		}
	}

}
