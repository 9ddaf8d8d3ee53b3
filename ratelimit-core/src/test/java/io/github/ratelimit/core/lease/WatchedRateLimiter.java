package io.github.ratelimit.core.lease;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;

/**
 * A real limiter, watched: counts its calls, the lease calls in flight per key, the most permits each lease asked
 * for; can hold one key's grants until released (the real grant is made, its answer held back, as a slow network
 * would) and can fail lease calls as a backend that is down would.
 */
final class WatchedRateLimiter implements RateLimiter {

	private final RateLimiter real;

	final AtomicInteger leaseCalls = new AtomicInteger();

	final AtomicInteger exactCalls = new AtomicInteger();

	/** The permits of the exact calls. */
	final AtomicLong exactPermits = new AtomicLong();

	final AtomicInteger returnCalls = new AtomicInteger();

	final List<Long> maximums = new CopyOnWriteArrayList<>();

	private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();

	final AtomicInteger mostInFlightOfOneKey = new AtomicInteger();

	private final Map<String, CompletableFuture<Void>> held = new ConcurrentHashMap<>();

	final AtomicReference<RuntimeException> failure = new AtomicReference<>();

	/** Thrown by lease calls instead of answering, when set: a backend's client that breaks with an {@link Error}. */
	final AtomicReference<Error> thrown = new AtomicReference<>();

	/** Whether lease calls answer on the calling thread, as the in-memory backend and Jedis do. */
	volatile boolean answersAtOnce;

	/** Run by each lease call before it answers (on the calling thread). */
	volatile Runnable onLease = () -> {
	};

	/** Whether this limiter says its calls block the calling thread, as Jedis' do ({@link #blocking()}). */
	volatile boolean blocks;

	/** The threads lease calls were made on. */
	final List<String> leaseThreads = new CopyOnWriteArrayList<>();

	/** The threads returns were made on. */
	final List<String> returnThreads = new CopyOnWriteArrayList<>();

	WatchedRateLimiter(RateLimiter real) {
		this.real = real;
	}

	/**
	 * Holds the answers of the key's lease calls until {@link #release(String)}.
	 */
	void hold(String key) {
		this.held.put(key, new CompletableFuture<>());
	}

	void release(String key) {
		this.held.remove(key).complete(null);
	}

	@Override
	public Policy policy() {
		return this.real.policy();
	}

	@Override
	public Decision tryAcquire(String key, long permits) {
		this.exactCalls.incrementAndGet();
		return this.real.tryAcquire(key, permits);
	}

	@Override
	public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
		this.exactCalls.incrementAndGet();
		this.exactPermits.addAndGet(permits);
		return this.real.tryAcquireAsync(key, permits);
	}

	@Override
	public Decision peek(String key) {
		return this.real.peek(key);
	}

	@Override
	public void reset(String key) {
		this.real.reset(key);
	}

	@Override
	public boolean blocking() {
		return this.blocks;
	}

	@Override
	public CompletionStage<LeaseGrant> tryLeaseAsync(String key, long minimum, long maximum) {
		this.leaseCalls.incrementAndGet();
		this.leaseThreads.add(Thread.currentThread().getName());
		this.maximums.add(maximum);
		Error error = this.thrown.get();
		if (error != null) {
			throw error;
		}
		RuntimeException failing = this.failure.get();
		if (failing != null) {
			return CompletableFuture.failedFuture(failing);
		}
		this.onLease.run();
		AtomicInteger keyInFlight = this.inFlight.computeIfAbsent(key, (k) -> new AtomicInteger());
		this.mostInFlightOfOneKey.accumulateAndGet(keyInFlight.incrementAndGet(), Math::max);
		CompletableFuture<LeaseGrant> grant = this.real.tryLeaseAsync(key, minimum, maximum).toCompletableFuture();
		CompletableFuture<Void> hold = this.held.getOrDefault(key, CompletableFuture.completedFuture(null));
		if (this.answersAtOnce && hold.isDone()) {
			keyInFlight.decrementAndGet();
			return grant;
		}
		// a little later on another thread, as a network answer comes, so that concurrent requests pile up behind it
		return grant.thenCombineAsync(hold, (granted, ignored) -> granted,
				CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS))
			.whenComplete((granted, ex) -> keyInFlight.decrementAndGet());
	}

	@Override
	public CompletionStage<Long> returnLeasedAsync(String key, LeaseGrant grant, long permits) {
		this.returnCalls.incrementAndGet();
		this.returnThreads.add(Thread.currentThread().getName());
		return this.real.returnLeasedAsync(key, grant, permits);
	}

}
