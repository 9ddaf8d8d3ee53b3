package io.github.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.stream.Collectors;

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

	/**
	 * {@inheritDoc}
	 * <p>
	 * Validates the request, refuses a cost above the policy's smallest capacity without consuming anything (see
	 * {@link #unsatisfiable}), then asks the backend's {@link #evaluate} hook.
	 * @throws IllegalArgumentException when the key is null or empty or {@code permits} below 1
	 */
	@Override
	public final CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
		checkKey(key);
		checkPermits(permits);
		if (permits > this.smallestCapacity) {
			return unsatisfiable(key, permits);
		}
		return call(() -> evaluate(key, permits, true)).thenApply((outcomes) -> Decision.of(outcomes, permits));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Validates the request as {@link #tryAcquireAsync(String, long)} does, then asks the backend's {@link #reserve}
	 * hook when the policy's algorithm is {@linkplain Algorithm#reservable() reservable} and {@code maxWait} is at
	 * least a microsecond, else decides as {@code tryAcquireAsync}.
	 * @throws IllegalArgumentException when the key is null or empty, {@code permits} below 1 or {@code maxWait}
	 * negative
	 */
	@Override
	public final CompletionStage<Decision> tryReserveAsync(String key, long permits, Duration maxWait) {
		if (maxWait == null || maxWait.isNegative()) {
			throw new IllegalArgumentException("A maximum wait must not be negative, was " + maxWait);
		}
		long maxWaitMicros = micros(maxWait);
		if (!reserves() || maxWaitMicros == 0) {
			return tryAcquireAsync(key, permits);
		}
		checkKey(key);
		checkPermits(permits);
		if (permits > this.smallestCapacity) {
			return unsatisfiable(key, permits);
		}
		return call(() -> reserve(key, permits, maxWaitMicros)).thenApply((outcomes) -> Decision.of(outcomes, permits));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * True for a policy of a {@linkplain Algorithm#reservable() reservable} algorithm.
	 */
	@Override
	public final boolean reserves() {
		return this.policy.algorithm().reservable();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * True for a policy of the fixed window.
	 */
	@Override
	public final boolean takesBack() {
		return this.policy.algorithm() == Algorithm.FIXED_WINDOW;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Validates the request, refuses a minimum above the policy's smallest capacity as {@link #tryAcquire} would
	 * (without consuming anything; such a refusal has {@code takenAtMicros} 0), takes a maximum above that capacity as
	 * the capacity, then asks the backend's {@link #lease} hook.
	 * @throws IllegalArgumentException when the key is null or empty, {@code minimum} is below 1 or {@code maximum}
	 * below {@code minimum}
	 */
	@Override
	public final CompletionStage<LeaseGrant> tryLeaseAsync(String key, long minimum, long maximum) {
		checkLeasable();
		checkKey(key);
		checkPermits(minimum);
		if (maximum < minimum) {
			throw new IllegalArgumentException(
					"Maximum permits of a lease must be at least its minimum " + minimum + ", was " + maximum);
		}
		if (minimum > this.smallestCapacity) {
			return unsatisfiable(key, minimum).thenApply((refused) -> new LeaseGrant(0, refused, 0));
		}
		return call(() -> lease(key, minimum, Math.min(maximum, this.smallestCapacity)));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Calls the backend's {@link #returnLeased} hook only for the fixed window, and only with permits to return;
	 * otherwise completes with 0 at once.
	 * @throws IllegalArgumentException when the key is null or empty, the grant null, or {@code permits} negative or
	 * above the grant's
	 */
	@Override
	public final CompletionStage<Long> returnLeasedAsync(String key, LeaseGrant grant, long permits) {
		checkLeasable();
		checkKey(key);
		if (grant == null) {
			throw new IllegalArgumentException("Lease grant must not be null");
		}
		if (permits < 0 || permits > grant.granted()) {
			throw new IllegalArgumentException(
					"Permits returned must be between 0 and the " + grant.granted() + " granted, was " + permits);
		}
		if (permits == 0 || this.policy.algorithm() != Algorithm.FIXED_WINDOW) {
			return CompletableFuture.completedFuture(0L);
		}
		return call(() -> returnLeased(key, grant.takenAtMicros(), permits));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Asks the backend's {@link #evaluate} hook without consuming, and waits for its answer on the calling thread.
	 */
	@Override
	public final Decision peek(String key) {
		checkKey(key);
		return Decision.of(Waiting.await(call(() -> evaluate(key, 1, false))), 1);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Asks the backend's {@link #clear} hook and waits for its answer on the calling thread.
	 */
	@Override
	public final void reset(String key) {
		checkKey(key);
		Waiting.await(call(() -> clear(key)));
	}

	/**
	 * A hook's answer, or its failure when it throws instead of answering with a failed stage.
	 */
	private static <T> CompletionStage<T> call(Supplier<CompletionStage<T>> hook) {
		try {
			return hook.get();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * The refusal of a request that costs more than a limit's capacity, which no wait can admit. It consumes nothing
	 * and reports the client's state as it is: the backend's {@link #evaluate} hook is asked for one permit without
	 * consuming (backends never see a cost above a capacity), so {@code remaining}, {@code resetAfter} and
	 * {@code nextPermitAfter} are the client's own (a full bucket of 5 refusing a cost of 6: remaining 5, reset 0) and
	 * {@code retryAfter} is the limit's period, as for every such refusal. When that state cannot be read (the backend
	 * failed), the refusal stands all the same, since it needs no state, and reports none of its own: remaining 0 and
	 * waits of a whole period.
	 */
	private CompletionStage<Decision> unsatisfiable(String key, long permits) {
		return call(() -> evaluate(key, 1, false)).handle((outcomes, failure) -> Decision
			.of((outcomes != null && failure == null) ? outcomes : stateless(), permits));
	}

	/** Every limit's outcome with no state read: nothing remaining, a whole period to wait and to reset. */
	private List<LimitDecision> stateless() {
		List<LimitDecision> outcomes = new ArrayList<>(this.policy.limits().size());
		for (Limit limit : this.policy.limits()) {
			long period = limit.periodMicros();
			outcomes.add(new LimitDecision(limit, false, 0, period, period, period));
		}
		return outcomes;
	}

	/**
	 * Evaluates every limit of the policy for one request, atomically, and when {@code consume} is set and every
	 * limit admits it, takes the permits from all of them; without blocking the calling thread where the backend's
	 * client allows it (backends that decide in memory answer with a completed stage).
	 * @param key the client's key
	 * @param permits the permits asked for, at least 1 and at most the policy's smallest capacity
	 * @param consume whether to take the permits when admitted, or only report
	 * @return one outcome per limit, in the policy's order, when known
	 */
	protected abstract CompletionStage<List<LimitDecision>> evaluate(String key, long permits, boolean consume);

	/**
	 * Reserves permits atomically: evaluates every limit as {@link #evaluate} does with {@code consume} set, except
	 * that a limit also admits the request when it will have the permits within {@code maxWaitMicros} and within its
	 * period (its outcome's retry-after then the time until they are due), and takes them from every limit, or from
	 * none. Backends of reservable algorithms override this; the default throws.
	 * @param key the client's key
	 * @param permits the permits asked for, at least 1 and at most the policy's smallest capacity
	 * @param maxWaitMicros the longest the caller waits for them, at least 1
	 * @return one outcome per limit, in the policy's order, when known
	 */
	protected CompletionStage<List<LimitDecision>> reserve(String key, long permits, long maxWaitMicros) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot reserve");
	}

	/**
	 * Takes a lease atomically: the most permits every limit has available now, at most {@code maximum}, when that is
	 * at least {@code minimum}; otherwise nothing, evaluating {@code minimum} permits as {@link #evaluate} would.
	 * Build the answer with {@link #leaseGrant}. Backends of leasable algorithms override this; the default throws.
	 * @param key the client's key
	 * @param minimum the fewest permits worth taking, at least 1 and at most the policy's smallest capacity
	 * @param maximum the most permits to take, at least {@code minimum} and at most the smallest capacity
	 * @return the grant, when made
	 */
	protected CompletionStage<LeaseGrant> lease(String key, long minimum, long maximum) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot lease");
	}

	/**
	 * Gives unused permits of a fixed window's lease back: for each limit whose stored window is still the one
	 * {@code takenAtMicros} falls in, its count goes down by {@code permits} (not below 0), its expiry unchanged.
	 * Backends that lease the fixed window override this; the default throws.
	 * @param key the client's key
	 * @param takenAtMicros when the permits were taken, by the backend's clock
	 * @param permits the permits to give back, at least 1
	 * @return the fewest permits any limit took back
	 */
	protected CompletionStage<Long> returnLeased(String key, long takenAtMicros, long permits) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot take leased permits back");
	}

	/**
	 * The answer to a lease, the same from every backend.
	 * @param outcomes one outcome per limit, for the permits granted or, when none were, for the minimum
	 * @param granted the permits granted, 0 when refused
	 * @param minimum the minimum asked for
	 * @param takenAtMicros the backend's clock when the lease was decided
	 * @return the grant
	 */
	protected static LeaseGrant leaseGrant(List<LimitDecision> outcomes, long granted, long minimum,
			long takenAtMicros) {
		return new LeaseGrant(granted, Decision.of(outcomes, (granted > 0) ? granted : minimum), takenAtMicros);
	}

	/**
	 * Forgets the state of every limit for the key.
	 * @param key the client's key
	 * @return done when forgotten
	 */
	protected abstract CompletionStage<Void> clear(String key);

	private void checkLeasable() {
		if (!this.policy.algorithm().leasable()) {
			throw new UnsupportedOperationException("Policy '" + this.policy.name() + "' ("
					+ this.policy.algorithm().id() + ") cannot be leased: only " + leasableAlgorithms() + " can");
		}
	}

	private static String leasableAlgorithms() {
		return Arrays.stream(Algorithm.values())
			.filter(Algorithm::leasable)
			.map(Algorithm::id)
			.collect(Collectors.joining(", "));
	}

	/** A wait in whole microseconds, rounded down, at most 2^53 (longer than any limit reserves). */
	private static long micros(Duration wait) {
		return (wait.getSeconds() >= Limit.EXACT_INTEGER_LIMIT / 1_000_000) ? Limit.EXACT_INTEGER_LIMIT
				: wait.getSeconds() * 1_000_000 + wait.getNano() / 1000;
	}

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
