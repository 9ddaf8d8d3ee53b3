package io.github.ratelimit.benchmarks;

import java.net.URI;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.redis.PlainLettuceLimiter;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import org.jspecify.annotations.Nullable;
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
 * <li>{@code denyCache}: the deny cache answering for a client it remembers as refused;</li>
 * <li>{@code chainLeased}: one request through the one chain the servlet filter waits for
 * ({@link RateLimitChain#await}), a policy (key {@code ip}) leased in batches of up to {@value #CHAIN_BATCH} (so that
 * renewals, one round trip each, do not bound the thread: the chain's own work) on an enforcer wired as the starter
 * wires it (deny cache on, no observation), and its rate limit headers written: the rate limit's own work per request
 * in the servlet benchmark's leased cell, without HTTP.</li>
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

	private static final int CHAIN_BATCH = 100_000;

	private OurBackend backend;

	private RateLimiter exact;

	private PlainLettuceLimiter plain;

	private LeasedRateLimiter leased;

	private RateLimiter inMemory;

	private DenyCache denyCache;

	private LeasedRateLimiter chainLimiter;

	private RateLimitChain chain;

	private List<RateLimitChain.Step> steps;

	private final RateLimitHeaders headers = new RateLimitHeaders(true, false);

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
		Policy chained = Policy.of("jmh-chain", Algorithm.TOKEN_BUCKET, "1000000000/100d");
		// a batch no thread here takes in one round trip: the chain's own work, not the wait for a renewal
		this.chainLimiter = new LeasedRateLimiter(this.backend.backend().create(chained),
				new LeaseSettings(CHAIN_BATCH, true, Duration.ofSeconds(1)));
		this.chain = new RateLimitChain(new RateLimitEnforcer(List.of(), this.backend.backend(), new CircuitBreaker(),
				new DenyCache(DenyCache.DEFAULT_MAXIMUM_CLIENTS, DenyCache.DEFAULT_MAX_AGE), 1));
		this.steps = List.of(RateLimitChain.Step.of(PolicyDefinition.of(chained, this.chainLimiter, "ip",
				(request) -> null, List.of(), List.of(), Set.of(), 1, FailureMode.OPEN, false)));
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
		this.chainLimiter.close();
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
	 * @return the number of headers written for an admitted request
	 */
	@Benchmark
	public int chainLeased() {
		RateLimitChain.Verdict verdict = this.chain.await(new Request(), this.steps, true);
		int[] written = new int[1];
		if (verdict.shown() != null) {
			this.headers.write(verdict.shown(), (name, value) -> written[0]++);
		}
		return written[0];
	}

	/**
	 * A request from one client, its attributes kept as a servlet request keeps them (one per name).
	 */
	private static final class Request implements RateLimitRequest {

		private @Nullable String attributeName;

		private @Nullable Object attribute;

		@Override
		public String method() {
			return "GET";
		}

		@Override
		public @Nullable String header(String name) {
			return null;
		}

		@Override
		public @Nullable String queryParameter(String name) {
			return null;
		}

		@Override
		public String remoteAddress() {
			return KEY;
		}

		@Override
		public @Nullable Principal principal() {
			return null;
		}

		@Override
		public @Nullable URI uri() {
			return null;
		}

		@Override
		public Object nativeRequest() {
			return this;
		}

		@Override
		@SuppressWarnings("unchecked")
		public synchronized <T> T attribute(String name, Supplier<T> ifAbsent) {
			if (this.attribute == null) {
				this.attributeName = name;
				this.attribute = ifAbsent.get();
			}
			else if (!name.equals(this.attributeName)) {
				throw new IllegalStateException("One attribute only: " + this.attributeName + ", not " + name);
			}
			return (T) this.attribute;
		}

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
