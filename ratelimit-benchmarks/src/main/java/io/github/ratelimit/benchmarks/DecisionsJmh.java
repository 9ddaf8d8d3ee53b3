package io.github.ratelimit.benchmarks;

import java.time.Duration;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.redis.PlainLettuceLimiter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The in-process decision cells on JMH ({@link JmhDecisions} runs them with its GC profiler): one hot key, every
 * decision admitted (a limit no run reaches), each benchmark one decision.
 * <ul>
 * <li>{@code exact}: our Redis backend's token bucket, one script call per decision (Lettuce, one shared
 * connection);</li>
 * <li>{@code plainLettuce}: the same script sent by plain Lettuce ({@link PlainLettuceLimiter}), the floor;</li>
 * <li>{@code leased}: a {@link LeasedRateLimiter} (batch 100, adaptive, max-age 1 s) over that backend,
 * {@code tryAcquire}: nearly every decision from the lease in hand;</li>
 * <li>{@code leasedFromLease}: the same, {@code tryFromLease}, the enforcer's first step (renewing when it answers
 * {@code null});</li>
 * <li>{@code inMemory}: the in-memory backend's token bucket;</li>
 * <li>{@code denyCache}: the deny cache answering for a client it remembers as refused.</li>
 * </ul>
 * The Redis server is the run's own, pinned to its CPU: its address comes as system properties
 * ({@value #HOST}, {@value #PORT}).
 */
@State(Scope.Benchmark)
public class DecisionsJmh {

	/** The system property naming the Redis host. */
	static final String HOST = "benchmark.jmh.redisHost";

	/** The system property naming the Redis port. */
	static final String PORT = "benchmark.jmh.redisPort";

	private static final String KEY = "10.0.0.1";

	private OurBackend backend;

	private RateLimiter exact;

	private PlainLettuceLimiter plain;

	private LeasedRateLimiter leased;

	private RateLimiter inMemory;

	private DenyCache denyCache;

	/**
	 * Connects to the run's Redis and builds every contender.
	 */
	@Setup(Level.Trial)
	public void setUp() {
		OwnRedis redis = new Address(System.getProperty(HOST, "127.0.0.1"), Integer.getInteger(PORT, 6379));
		Policy policy = Policy.of("jmh", Algorithm.TOKEN_BUCKET, OurLimiter.LIMIT);
		this.backend = new OurBackend(redis);
		this.exact = this.backend.backend().create(policy);
		this.plain = new PlainLettuceLimiter(redis.host(), redis.port(), OurLimiter.KEY_PREFIX,
				Policy.of("jmh-plain", Algorithm.TOKEN_BUCKET, OurLimiter.LIMIT), new String[] { KEY });
		this.leased = new LeasedRateLimiter(this.backend.backend().create(
				Policy.of("jmh-leased", Algorithm.TOKEN_BUCKET, "1000000000/100d")),
				new LeaseSettings(100, true, Duration.ofSeconds(1)));
		this.inMemory = new InMemoryRateLimiterBackend()
			.create(Policy.of("jmh-memory", Algorithm.TOKEN_BUCKET, "1000000000000/1000d"));
		this.denyCache = new DenyCache(10_000, Duration.ofHours(1));
		Limit limit = Limit.parse("1/1h");
		Decision refusal = new Decision(false, limit, 0, Duration.ofHours(1), Duration.ofHours(1), Duration.ofHours(1),
				true, List.of(limit));
		this.denyCache.remember("jmh", KEY, 1, refusal, this.denyCache.now());
	}

	/**
	 * Closes the contenders and their connections.
	 */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.leased.close();
		this.plain.close();
		this.backend.close();
	}

	/**
	 * @return an exact decision
	 */
	@Benchmark
	public Decision exact() {
		return this.exact.tryAcquire(KEY);
	}

	/**
	 * @return whether plain Lettuce's call admitted
	 */
	@Benchmark
	public boolean plainLettuce() {
		return this.plain.decide(0);
	}

	/**
	 * @return a leased decision
	 */
	@Benchmark
	public Decision leased() {
		return this.leased.tryAcquire(KEY);
	}

	/**
	 * @return a decision from the lease in hand, renewed when there is none
	 */
	@Benchmark
	public Decision leasedFromLease() {
		Decision local = this.leased.tryFromLease(KEY, 1);
		return (local != null) ? local : this.leased.tryAcquire(KEY);
	}

	/**
	 * @return an in-memory decision
	 */
	@Benchmark
	public Decision inMemory() {
		return this.inMemory.tryAcquire(KEY);
	}

	/**
	 * @return the deny cache's refusal
	 */
	@Benchmark
	public Decision denyCache() {
		return this.denyCache.find("jmh", KEY, 1);
	}

	/**
	 * The run's Redis, by address.
	 */
	private record Address(String host, int port) implements OwnRedis {

		@Override
		public void outage(Duration down) {
			throw new UnsupportedOperationException("not the benchmark's own server");
		}

		@Override
		public void close() {
		}

	}

}
