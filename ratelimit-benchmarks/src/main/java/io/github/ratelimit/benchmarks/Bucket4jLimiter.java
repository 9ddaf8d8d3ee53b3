package io.github.ratelimit.benchmarks;

import java.time.Duration;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;

/**
 * Bucket4j's Lettuce proxy manager (compare-and-swap) with the same limit, on one shared Lettuce connection.
 * Connected once constructed.
 */
final class Bucket4jLimiter implements Contender {

	private final RedisClient client;

	private final StatefulRedisConnection<String, byte[]> connection;

	private final BucketProxy[] buckets;

	/**
	 * Bucket4j with the decision benchmarks' limit, {@link OurLimiter#LIMIT}.
	 */
	Bucket4jLimiter(OwnRedis redis) {
		this(redis, 100_000, Duration.ofDays(100));
	}

	Bucket4jLimiter(OwnRedis redis, long capacity, Duration period) {
		this.client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
		this.connection = this.client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
		ProxyManager<String> proxyManager = proxyManager(this.connection);
		BucketConfiguration configuration = configuration(capacity, period);
		String[] clients = OurLimiter.clients();
		this.buckets = new BucketProxy[clients.length];
		for (int i = 0; i < clients.length; i++) {
			this.buckets[i] = proxyManager.builder().build("bucket4j:" + clients[i], () -> configuration);
		}
		decide(0);
	}

	/**
	 * Bucket4j's Lettuce proxy manager, compare-and-swap, as every Bucket4j contender of the benchmarks builds it.
	 * @param connection the connection it shares
	 * @return the proxy manager
	 */
	static ProxyManager<String> proxyManager(StatefulRedisConnection<String, byte[]> connection) {
		return Bucket4jLettuce.casBasedBuilder(connection)
			.expirationAfterWrite(
					ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
	}

	/**
	 * A bucket of {@code capacity} tokens refilled greedily over {@code period}, our token bucket's limit.
	 * @param capacity the capacity
	 * @param period the time a full refill takes
	 * @return the configuration
	 */
	static BucketConfiguration configuration(long capacity, Duration period) {
		return BucketConfiguration.builder()
			.addLimit((limit) -> limit.capacity(capacity).refillGreedy(capacity, period))
			.build();
	}

	@Override
	public boolean decide(int client) {
		return this.buckets[client].tryConsume(1);
	}

	@Override
	public String toString() {
		return "Bucket4j";
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
