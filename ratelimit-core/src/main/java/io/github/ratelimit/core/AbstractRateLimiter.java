package io.github.ratelimit.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Base class of backends' limiters: validates arguments and combines the outcomes of a policy's limits into one
 * {@link Decision}, so every backend answers alike.
 */
public abstract class AbstractRateLimiter implements RateLimiter {

	private final Policy policy;

	private final long smallestCapacity;

	/**
	 * Creates a limiter of a policy.
	 * @param policy the policy whose limits every decision checks
	 */
	protected AbstractRateLimiter(Policy policy) {
		if (policy == null) {
			throw new IllegalArgumentException("Policy must not be null");
		}
		this.policy = policy;
		this.smallestCapacity = policy.smallestCapacity();
	}

	@Override
	public final Policy policy() {
		return this.policy;
	}

	@Override
	public final Decision tryAcquire(String key, long permits) {
		checkKey(key);
		checkPermits(permits);
		if (permits > this.smallestCapacity) {
			return unsatisfiable(permits);
		}
		return Decision.of(evaluate(key, permits, true), permits);
	}

	@Override
	public final CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
		checkKey(key);
		checkPermits(permits);
		if (permits > this.smallestCapacity) {
			return CompletableFuture.completedFuture(unsatisfiable(permits));
		}
		return evaluateAsync(key, permits).thenApply((outcomes) -> Decision.of(outcomes, permits));
	}

	@Override
	public final Decision peek(String key) {
		checkKey(key);
		return Decision.of(evaluate(key, 1, false), 1);
	}

	@Override
	public final void reset(String key) {
		checkKey(key);
		clear(key);
	}

	/**
	 * The refusal of a request that costs more than a limit's capacity, decided before any state is read or written
	 * (so backends never see a cost above a capacity, and Redis is not called). Its limits report no state: remaining
	 * 0 and waits of a whole period.
	 */
	private Decision unsatisfiable(long permits) {
		List<LimitOutcome> outcomes = new ArrayList<>(this.policy.limits().size());
		for (Limit limit : this.policy.limits()) {
			long period = limit.periodMicros();
			outcomes.add(new LimitOutcome(limit, permits <= limit.capacity(), 0, period, period, period));
		}
		return Decision.of(outcomes, permits);
	}

	/**
	 * Evaluates every limit of the policy for one request, atomically, and when {@code consume} is set and every
	 * limit admits it, takes the permits from all of them.
	 * @param key the client's key
	 * @param permits the permits asked for, at least 1 and at most the policy's smallest capacity
	 * @param consume whether to take the permits when admitted, or only report
	 * @return one outcome per limit, in the policy's order
	 */
	protected abstract List<LimitOutcome> evaluate(String key, long permits, boolean consume);

	/**
	 * Evaluates every limit of the policy for one request and takes the permits when every limit admits it, without
	 * blocking the calling thread. Backends that decide in memory answer at once, which is what this default does.
	 * @param key the client's key
	 * @param permits the permits asked for, at least 1 and at most the policy's smallest capacity
	 * @return one outcome per limit, in the policy's order, when known
	 */
	protected CompletionStage<List<LimitOutcome>> evaluateAsync(String key, long permits) {
		try {
			return CompletableFuture.completedFuture(evaluate(key, permits, true));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Forgets the state of every limit for the key.
	 * @param key the client's key
	 */
	protected abstract void clear(String key);

	private static void checkPermits(long permits) {
		if (permits < 1) {
			throw new IllegalArgumentException("Permits must be at least 1, was " + permits);
		}
	}

	private static void checkKey(String key) {
		if (key == null) {
			throw new IllegalArgumentException("Rate limit key must not be null");
		}
		if (key.isEmpty()) {
			throw new IllegalArgumentException("Rate limit key must not be empty");
		}
	}

}
