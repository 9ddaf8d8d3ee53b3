package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.StartedWindow;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16's guarantee on a real Redis: {@value #INSTANCES} leased limiters, each over its own connection factory and
 * backend as separate app servers would be, under {@value #THREADS} threads whose requests are routed unevenly (70% to
 * one instance, 10% to each other), admit at most the algorithm's allowance, and at least that allowance less the
 * permits their leases let expire or still hold. Beside them, the same load through the two usual alternatives: a
 * static split (each instance an exact limiter of limit/N) refuses while budget idles, and local counting with
 * periodic sync overshoots.
 */
abstract class AbstractLeasedProofTests {

	static final int INSTANCES = 4;

	static final int THREADS = 16;

	private static final Limit LIMIT = Limit.parse("1000/1h");

	/** Requests each quiet instance makes before it goes idle. */
	private static final int QUIET_BURST = 10;

	private static final int BUSY_THREADS = 4;

	/** Demand: 1.6 times the limit. */
	private static final int REQUESTS = 1600;

	private static final LeaseSettings SETTINGS = new LeaseSettings(50, true, Duration.ofSeconds(1));

	private final List<RedisRateLimiterBackend> backends = new ArrayList<>();

	/**
	 * One connection factory per instance.
	 * @return the factories
	 */
	abstract List<LettuceConnectionFactory> servers();

	/**
	 * The Redis topology, for the printed numbers.
	 * @return {@code standalone} or {@code cluster}
	 */
	abstract String topology();

	@ParameterizedTest
	@EnumSource(names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
	void leasedInstancesUnderUnevenLoadAdmitAtMostTheAllowanceAndAtLeastItLessWhatTheirLeasesLost(
			Algorithm algorithm) throws Exception {
		Limit limit = startedWindow();
		Policy policy = new Policy("lease-proof-" + UUID.randomUUID(), algorithm, List.of(limit));
		List<LeasedRateLimiter> instances = leased(policy);
		String key = "client-" + UUID.randomUUID();
		AtomicIntegerArray perInstance = new AtomicIntegerArray(INSTANCES);
		long started = System.nanoTime();
		int admitted = unevenly((instance) -> count(perInstance, instance,
				instances.get(instance).tryAcquire(key).allowed()));
		long spanMicros = (System.nanoTime() - started) / 1000;
		// token bucket and GCRA over a span T from a full key: capacity + capacity x T / period; a fixed window: its
		// capacity (the window began at the test and lasts an hour more)
		long allowance = limit.capacity() + ((algorithm == Algorithm.FIXED_WINDOW) ? 0
				: Math.floorDiv(limit.capacity() * spanMicros, limit.periodMicros()));
		long expired = sum(instances, (stats) -> stats.stats().permitsExpired());
		long held = sum(instances, (stats) -> stats.stats().permitsHeld());
		long leased = sum(instances, (stats) -> stats.stats().permitsLeased());
		long renewals = sum(instances, (stats) -> stats.stats().renewals());
		long local = sum(instances, (stats) -> stats.stats().leaseHits());
		long exact = sum(instances, (stats) -> stats.stats().permitsAdmittedExactly());
		report(algorithm.id(), "leased", admitted, allowance, "expired=" + expired + " held=" + held + " leased="
				+ leased + " renewals=" + renewals + " local=" + local + " exact=" + exact + " perInstance="
				+ perInstance);
		assertThat(admitted).isLessThanOrEqualTo((int) allowance);
		// every permit leased was admitted, is still held or expired; the rest admitted were decided exactly (a key's
		// first requests on an instance, before its rate makes a lease pay)
		assertThat(admitted - exact + held + expired).isEqualTo(leased);
		assertThat(admitted).isGreaterThanOrEqualTo((int) (limit.capacity() - expired - held));
		assertThat(expired + held).isLessThanOrEqualTo(INSTANCES * SETTINGS.batch() * Math.max(1,
				Duration.ofNanos(System.nanoTime() - started).toSeconds() + 1));
		instances.forEach(LeasedRateLimiter::close);
	}

	/**
	 * The lower bound where it is not trivial: three quiet instances each take a full lease in an early burst, use a
	 * few of its permits and go idle, while the busy instance keeps asking until well past {@code max-age}. The idle
	 * leases' remainders expire (token bucket, GCRA: lost, so the busy instance is refused with the key not used up)
	 * or go back to the window (fixed window: the busy instance then uses them, up to the whole capacity).
	 */
	@ParameterizedTest
	@EnumSource(names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
	void idleInstancesLeasesExpireOrGoBackAndTheBusyInstanceIsAdmittedAtLeastTheAllowanceLessWhatTheyLost(
			Algorithm algorithm) throws Exception {
		Limit limit = startedWindow();
		Policy policy = new Policy("lease-idle-" + UUID.randomUUID(), algorithm, List.of(limit));
		// a fixed batch, so each quiet instance's one lease is a full batch however little it uses
		LeaseSettings settings = new LeaseSettings(SETTINGS.batch(), false, SETTINGS.maxAge());
		List<LeasedRateLimiter> instances = leased(policy, settings);
		List<LeasedRateLimiter> quiet = instances.subList(1, INSTANCES);
		String key = "client-" + UUID.randomUUID();
		AtomicIntegerArray perInstance = new AtomicIntegerArray(INSTANCES);
		long started = System.nanoTime();
		// the quiet instances' burst: one lease each, mostly unused
		for (int instance = 1; instance < INSTANCES; instance++) {
			for (int i = 0; i < QUIET_BURST; i++) {
				count(perInstance, instance, instances.get(instance).tryAcquire(key).allowed());
			}
		}
		long quietLeased = sum(quiet, (stats) -> stats.stats().permitsLeased());
		// the busy instance asks until the idle leases are gone (expired or given back, the returns answered) and
		// half a second more, to use what came back; the cap is only a generous wait
		long cap = started + Duration.ofSeconds(10).toNanos();
		AtomicLong stopAt = new AtomicLong(cap);
		AtomicLong quietSettledAt = new AtomicLong();
		Hammer.admitted(1, BUSY_THREADS, (ignored) -> {
			while (System.nanoTime() - stopAt.get() < 0) {
				if (!count(perInstance, 0, instances.get(0).tryAcquire(key).allowed())) {
					Thread.sleep(5);
				}
				if (quietSettledAt.get() == 0 && settled(quiet, perInstance)
						&& quietSettledAt.compareAndSet(0, System.nanoTime())) {
					stopAt.set(Math.min(cap, quietSettledAt.get() + Duration.ofMillis(500).toNanos()));
				}
			}
			return 0;
		});
		long spanMicros = (System.nanoTime() - started) / 1000;
		long allowance = limit.capacity() + ((algorithm == Algorithm.FIXED_WINDOW) ? 0
				: Math.floorDiv(limit.capacity() * spanMicros, limit.periodMicros()));
		long admitted = 0;
		for (int instance = 0; instance < INSTANCES; instance++) {
			admitted += perInstance.get(instance);
		}
		long busy = perInstance.get(0);
		long expired = sum(instances, (stats) -> stats.stats().permitsExpired());
		long returned = sum(instances, (stats) -> stats.stats().permitsReturned());
		long held = sum(instances, (stats) -> stats.stats().permitsHeld());
		long leased = sum(instances, (stats) -> stats.stats().permitsLeased());
		long renewals = sum(instances, (stats) -> stats.stats().renewals());
		report(algorithm.id(), "idle quiet instances", admitted, allowance, "busy=" + busy + " quietLeased="
				+ quietLeased + " expired=" + expired + " returned=" + returned + " held=" + held + " leased=" + leased
				+ " renewals=" + renewals + " settledAfterMs="
				+ ((quietSettledAt.get() == 0) ? "never" : (quietSettledAt.get() - started) / 1_000_000)
				+ " perInstance=" + perInstance);
		assertThat(quietSettledAt.get()).as("the idle leases were disposed of within the generous wait").isPositive();
		assertThat(quietLeased).as("each quiet instance took one full lease")
			.isEqualTo((INSTANCES - 1) * settings.batch());
		assertThat(admitted).isLessThanOrEqualTo(allowance);
		// every permit leased was admitted, is still held, expired or went back to its window
		assertThat(admitted + held + expired + returned).isEqualTo(leased);
		assertThat(admitted).isGreaterThanOrEqualTo(limit.capacity() - expired - held);
		// the documented cost: each instance holds at most one batch of the key, and a quiet instance loses at most
		// one lease's remainder per max-age; here each quiet instance leased once and the busy one never let a lease
		// age, so all of it together is at most one batch per instance
		assertThat(held).isLessThanOrEqualTo(INSTANCES * settings.batch());
		assertThat(expired + held).isLessThanOrEqualTo(INSTANCES * settings.batch());
		if (algorithm == Algorithm.FIXED_WINDOW) {
			// the window's permits the quiet instances did not use came back, and the busy instance used them: without
			// returns it could have had at most what the quiet instances left untaken
			assertThat(returned).isPositive();
			assertThat(busy).isGreaterThan(limit.capacity() - quietLeased);
			assertThat(admitted).isEqualTo(limit.capacity() - held - expired);
		}
		else {
			// token bucket, GCRA: the idle leases' remainders are lost, not given back
			assertThat(returned).isZero();
			assertThat(expired).isGreaterThanOrEqualTo(quietLeased - (admitted - busy));
			assertThat(admitted).isLessThan(limit.capacity());
		}
		instances.forEach(LeasedRateLimiter::close);
	}

	@Test
	void leasedFixedWindowAdmitsAtMostEachWindowsCapacityAcrossAWindowBoundary() throws Exception {
		StringRedisTemplate redis = new StringRedisTemplate(servers().get(0));
		// a window that ends soon, so the run crosses its end
		Limit limit = StartedWindow.endingWithin(RedisTime.micros(redis), "500/2s", Duration.ofMillis(300),
				Duration.ofMillis(800));
		Policy policy = new Policy("lease-window-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, List.of(limit));
		List<LeasedRateLimiter> instances = leased(policy);
		String key = "client-" + UUID.randomUUID();
		// where the window ends on this JVM's monotonic clock, give or take half the round trip that read Redis' clock
		long before = System.nanoTime();
		long redisNow = RedisTime.micros(redis);
		long after = System.nanoTime();
		long boundary = (before + after) / 2 + (StartedWindow.end(limit, redisNow) - redisNow) * 1000;
		long margin = (after - before) + Duration.ofMillis(2).toNanos();
		long stopAt = boundary + Duration.ofSeconds(1).toNanos();
		// before the boundary a paced load (16 threads, one request each per 50 ms: some 320/s, so the window is not
		// used up and leases are in hand when it ends); after it, as fast as the threads can ask
		AtomicInteger[] admittedIn = { new AtomicInteger(), new AtomicInteger(), new AtomicInteger() };
		AtomicInteger refusedAfter = new AtomicInteger();
		Hammer.admitted(1, THREADS, (ignored) -> {
			for (int i = 0;; i++) {
				long start = System.nanoTime();
				if (start >= stopAt) {
					return 0;
				}
				boolean admitted = instances.get(route(i)).tryAcquire(key).allowed();
				long end = System.nanoTime();
				int window = (end < boundary - margin) ? 0 : (start > boundary + margin) ? 1 : 2;
				if (admitted) {
					admittedIn[window].incrementAndGet();
				}
				else if (window == 1) {
					refusedAfter.incrementAndGet();
				}
				if (start < boundary) {
					Thread.sleep(50);
				}
			}
		});
		long expired = sum(instances, (stats) -> stats.stats().permitsExpired());
		long returned = sum(instances, (stats) -> stats.stats().permitsReturned());
		int total = admittedIn[0].get() + admittedIn[1].get() + admittedIn[2].get();
		report("fixed-window", "leased across a boundary", total, 2 * limit.capacity(),
				"beforeBoundary=" + admittedIn[0] + " afterBoundary=" + admittedIn[1] + " atBoundary=" + admittedIn[2]
						+ " refusedAfter=" + refusedAfter + " expired=" + expired + " returned=" + returned);
		assertThat(refusedAfter).as("the second window was used up").hasPositiveValue();
		assertThat(admittedIn[0].get()).isLessThanOrEqualTo(500);
		assertThat(admittedIn[1].get()).isLessThanOrEqualTo(500);
		assertThat(total).isLessThanOrEqualTo(1000);
		instances.forEach(LeasedRateLimiter::close);
	}

	@Test
	void aStaticSplitRefusesOnTheBusyInstanceWhileBudgetIdlesOnTheQuietOnes() throws Exception {
		Policy policy = new Policy("split-proof-" + UUID.randomUUID(), Algorithm.TOKEN_BUCKET, List.of(LIMIT));
		// each instance decides its share alone (as the 'local' failure mode does): no shared state at all
		List<RateLimiter> instances = servers().stream()
			.map((server) -> new InMemoryRateLimiterBackend().create(policy.dividedBy(INSTANCES)))
			.toList();
		String key = "client-" + UUID.randomUUID();
		AtomicIntegerArray perInstance = new AtomicIntegerArray(INSTANCES);
		// the same uneven load, but only as many requests as the limit: one instance that decides for all would admit
		// every one of them
		int admitted = unevenly(LIMIT.capacity(), (instance) -> count(perInstance, instance,
				instances.get(instance).tryAcquire(key).allowed()));
		long refused = LIMIT.capacity() - admitted;
		report("token-bucket", "static split", admitted, LIMIT.capacity(),
				"refused=" + refused + " perInstance=" + perInstance);
		assertThat(refused).isPositive();
		assertThat(admitted).isLessThan((int) LIMIT.capacity());
	}

	@Test
	void localCountingWithPeriodicSyncOvershoots() throws Exception {
		String key = "naive-proof:" + UUID.randomUUID();
		List<NaiveSyncedCounter> instances = servers().stream()
			.map((server) -> new NaiveSyncedCounter(new StringRedisTemplate(server), key, LIMIT.capacity(),
					Duration.ofMillis(100)))
			.toList();
		AtomicIntegerArray perInstance = new AtomicIntegerArray(INSTANCES);
		try {
			int admitted = unevenly((instance) -> count(perInstance, instance, instances.get(instance).tryAcquire()));
			report("local counting", "synced every 100 ms", admitted, LIMIT.capacity(), "perInstance=" + perInstance);
			assertThat(admitted).isGreaterThan((int) LIMIT.capacity());
		}
		finally {
			instances.forEach(NaiveSyncedCounter::close);
		}
	}

	@BeforeEach
	void startBackends() {
		for (LettuceConnectionFactory server : servers()) {
			RedisRateLimiterBackend backend = new RedisRateLimiterBackend(server, "ratelimit", TestRedis.TIMEOUT);
			backend.start();
			this.backends.add(backend);
		}
	}

	@AfterEach
	void closeBackends() {
		this.backends.forEach(RedisRateLimiterBackend::close);
	}

	/**
	 * One leased limiter per instance, each over that instance's own backend.
	 */
	private List<LeasedRateLimiter> leased(Policy policy) {
		return leased(policy, SETTINGS);
	}

	private List<LeasedRateLimiter> leased(Policy policy, LeaseSettings settings) {
		return this.backends.stream().map((backend) -> new LeasedRateLimiter(backend.create(policy), settings)).toList();
	}

	/**
	 * Whether the instances hold no permits and every permit of theirs not admitted has expired or been given back
	 * (each return answered).
	 */
	private static boolean settled(List<LeasedRateLimiter> instances, AtomicIntegerArray perInstance) {
		long admitted = 0;
		for (int instance = INSTANCES - instances.size(); instance < INSTANCES; instance++) {
			admitted += perInstance.get(instance);
		}
		return sum(instances, (stats) -> stats.stats().permitsHeld()) == 0
				&& admitted + sum(instances, (stats) -> stats.stats().permitsExpired())
						+ sum(instances, (stats) -> stats.stats().permitsReturned()) == sum(instances,
								(stats) -> stats.stats().permitsLeased());
	}

	private static int unevenly(Hammer.Attempt attempt) throws Exception {
		return unevenly(REQUESTS, attempt);
	}

	/**
	 * Sends {@code requests} requests from {@value #THREADS} threads, released at once, routing 70% of them to
	 * instance 0 and 10% to each other, and counts the admissions.
	 */
	private static int unevenly(long requests, Hammer.Attempt attempt) throws Exception {
		AtomicLong sent = new AtomicLong();
		return Hammer.admitted(1, THREADS, (ignored) -> {
			int admitted = 0;
			for (long i = sent.getAndIncrement(); i < requests; i = sent.getAndIncrement()) {
				admitted += attempt.admit(route(i)) ? 1 : 0;
			}
			return admitted;
		});
	}

	/** Request i's instance: 7 in 10 go to instance 0, one each to the others. */
	private static int route(long request) {
		int slot = (int) (request % 10);
		return (slot < 7) ? 0 : slot - 6;
	}

	private static boolean count(AtomicIntegerArray perInstance, int instance, boolean admitted) {
		if (admitted) {
			perInstance.incrementAndGet(instance);
		}
		return admitted;
	}

	private static long sum(List<LeasedRateLimiter> instances, ToLongFunction<LeasedRateLimiter> stat) {
		return instances.stream().mapToLong(stat).sum();
	}

	/**
	 * The proofs' limit, 1000 per an hour or a moment more whose window began at the test: a fixed window then lasts
	 * an hour more (the buckets' state starts at the first request anyway).
	 */
	private Limit startedWindow() {
		return RedisTime.startedWindow(new StringRedisTemplate(servers().get(0)), LIMIT.toString());
	}

	private void report(String algorithm, String mode, long admitted, long allowance, String details) {
		System.out.println("[lease-proof] " + topology() + " " + algorithm + " " + mode + ": admitted=" + admitted
				+ " allowance=" + allowance + " " + details);
	}

}
