package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.WaitReceipt;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.override.ClientOverrides;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.core.wait.PermitQueues;
import io.github.ratelimit.spring.observation.DefaultRateLimitObservationConvention;
import io.github.ratelimit.spring.observation.RateLimitObservationContext;
import io.github.ratelimit.spring.observation.RateLimitObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * Enforces policies: the one path by which every decision reaches a limiter ({@link #enforceAsync}), for the
 * {@link RateLimitChain} of a request. Callers that must wait for the outcome wait at their edge
 * ({@link CallingThread}), once per request.
 * <p>
 * A policy whose limiter can admit a request locally ({@link RateLimiter#tryFromLease}: a {@link LeasedRateLimiter}'s
 * lease in hand) decides it so first, without a call (so neither the deny cache nor the circuit breaker applies, and
 * a lease keeps serving while the backend is down; the breaker counts it as the success it is). Otherwise it asks
 * the deny cache (a client the backend refused a moment ago is refused again without a call), then the policy's
 * limiter (for a leased policy, a renewal of its lease, refused or failing like any call; the requests waiting for
 * one renewal that fails are one failure to the breaker), unless the circuit breaker says the backend is failing.
 * When the limiter throws, the policy's failure mode decides: {@code open} lets the request through,
 * {@code closed} refuses it with 503, {@code local} asks an in-process limiter whose limits are divided by the number
 * of instances. What the error was decides the rest:
 * a failure of the backend (as the backend itself tells) is reported to the breaker and warned of at most every
 * {@value #WARNING_INTERVAL_SECONDS} s, and a timeout is counted as such; a {@link LinkageError} (a library of the
 * backend's is not the version it was built against, so every call fails alike) is such a failure too, logged at
 * ERROR once naming the library ({@link IncompatibleLibrary}); anything else is a bug in that one request (logged at
 * ERROR once per policy and error type) or an interrupted caller, and the breaker never hears of it. No exception of
 * the limiter, nor a {@link LinkageError}, reaches the caller; only another {@link Error} (out of memory, a stack
 * overflow) does.
 * <p>
 * A client is decided, remembered and reset under its key {@linkplain PolicyDefinition#storedKey(String) as its
 * policy keeps it} (hashed, where the key may be a secret): callers give the key as its strategy found it, and this is
 * the one place that turns it into the kept one.
 * <p>
 * Each decision is an {@link Observation} ({@code ratelimit.decision}) on the registry given to
 * {@link #observeWith}, whose scope is open while the backend's call is made, so that the backend's own
 * observations (Lettuce's commands) are its children. Without a registry, or while it has no handler, decisions
 * are not observed at all.
 * <p>
 * A refusal the deny cache remembers is asked again, once it ages out, by one request at a time: every call tells the
 * cache how it ended (a refusal, an admission, or no answer). The answer to a call that timed out is still taken when
 * the backend gives it ({@link RateLimiterBackend#lateDecision}): a refusal is remembered, and when the failure mode
 * had admitted the request, recorded ({@link RateLimitRecorder#refusedLate}).
 */
public class RateLimitEnforcer {

	static final long WARNING_INTERVAL_SECONDS = 10;

	/** The ticket of a call the circuit breaker is not told of. */
	private static final long UNJUDGED = CircuitBreaker.NOT_PERMITTED + 1;

	private static final Log logger = LogFactory.getLog(RateLimitEnforcer.class);

	private final List<RateLimitRecorder> recorders;

	private final RateLimiterBackend backend;

	private final CircuitBreaker breaker;

	private final @Nullable DenyCache denyCache;

	private final int fallbackInstances;

	private final InMemoryRateLimiterBackend fallbackBackend;

	private final ConcurrentMap<Policy, RateLimiter> fallbacks = new ConcurrentHashMap<>();

	private volatile @Nullable OverriddenPolicies overrides;

	private final AtomicLong nextWarning = new AtomicLong(System.nanoTime());

	private final FirstWarning bugs = new FirstWarning(logger);

	private final FirstWarning incompatibilities = new FirstWarning(logger);

	private ObservationRegistry observations = ObservationRegistry.NOOP;

	private final PermitQueues<RateLimitOutcome> waits = new PermitQueues<>(new WaitEvents());

	private @Nullable RateLimitObservationConvention observationConvention;

	/**
	 * Creates an enforcer with the default circuit breaker, a deny cache and no division of limits for the local
	 * fallback.
	 * @param backend the backend of the policies' limiters, which tells its failures from other errors
	 * @param recorders told of every outcome
	 */
	public RateLimitEnforcer(RateLimiterBackend backend, List<RateLimitRecorder> recorders) {
		this(recorders, backend, new CircuitBreaker(), new DenyCache(DenyCache.DEFAULT_MAXIMUM_CLIENTS, DenyCache.DEFAULT_MAX_AGE), 1);
	}

	/**
	 * Creates an enforcer.
	 * @param recorders told of every outcome
	 * @param backend the backend of the policies' limiters, which tells its failures from other errors
	 * @param breaker the circuit breaker of the backend
	 * @param denyCache the cache of recent refusals, or {@code null} to ask the backend every time
	 * @param fallbackInstances the number every limit is divided by for the {@code local} failure mode
	 */
	public RateLimitEnforcer(List<RateLimitRecorder> recorders, RateLimiterBackend backend, CircuitBreaker breaker,
			@Nullable DenyCache denyCache, int fallbackInstances) {
		this(recorders, backend, breaker, denyCache, fallbackInstances, new InMemoryRateLimiterBackend());
	}

	/**
	 * Creates an enforcer.
	 * @param recorders told of every outcome
	 * @param backend the backend of the policies' limiters, which tells its failures from other errors
	 * @param breaker the circuit breaker of the backend
	 * @param denyCache the cache of recent refusals, or {@code null} to ask the backend every time
	 * @param fallbackInstances the number every limit is divided by for the {@code local} failure mode
	 * @param fallbackBackend where the {@code local} failure mode keeps its state (bounded like any in-memory backend)
	 */
	public RateLimitEnforcer(List<RateLimitRecorder> recorders, RateLimiterBackend backend, CircuitBreaker breaker,
			@Nullable DenyCache denyCache, int fallbackInstances, InMemoryRateLimiterBackend fallbackBackend) {
		this.fallbackBackend = fallbackBackend;
		this.recorders = List.copyOf(recorders);
		this.backend = backend;
		this.breaker = breaker;
		this.denyCache = denyCache;
		this.fallbackInstances = fallbackInstances;
	}

	/**
	 * Applies operators' per-client overrides from now on: a client with one is decided by its override's limits, and
	 * a change of its override forgets this instance's remembered refusals of it.
	 * @param overrides this instance's copy of the overrides
	 * @param maximum the most overrides' plans kept (at least the most overrides the store keeps)
	 */
	public void applyOverrides(ClientOverrides overrides, long maximum) {
		this.overrides = new OverriddenPolicies(overrides, this.backend, maximum);
		overrides.onChange((policy, key) -> {
			if (this.denyCache != null) {
				this.denyCache.forget(OverriddenPolicies.scope(policy), key);
			}
		});
	}

	/**
	 * Observes every decision from now on, as a {@code ratelimit.decision} observation on the given registry.
	 * @param registry the application's observation registry
	 * @param convention the convention that replaces {@link DefaultRateLimitObservationConvention}, or {@code null}
	 */
	public void observeWith(ObservationRegistry registry, @Nullable RateLimitObservationConvention convention) {
		this.observations = registry;
		this.observationConvention = convention;
	}

	/**
	 * Enforces a policy on one request without waiting for the backend. The outcome is complete at
	 * once when no backend call is made (a cached refusal, an open breaker, the in-memory backend); otherwise it
	 * completes on the thread of the backend's client (Lettuce's event loop), within the decision timeout, and never
	 * exceptionally, unless with an {@link Error} other than a {@link LinkageError}. Cancelling the outcome does not
	 * cancel the decision: once asked, the backend decides, and the decision is recorded as any other. Where the
	 * backend {@linkplain RateLimiterBackend#blocking() blocks}, this method blocks too: a reactive caller moves it off
	 * its event loop first ({@link #blocking()}).
	 * @param policy the policy
	 * @param requested the client's plan of it ({@link PolicyDefinition#planForAsync}), which the client's override,
	 * if any, replaces
	 * @param key the client's key, as its key strategy found it
	 * @param permits the request's cost
	 * @return the outcome, when known
	 */
	public CompletionStage<RateLimitOutcome> enforceAsync(PolicyDefinition policy, PolicyPlan requested, String key,
			long permits) {
		return detached(observedAsync(policy, requested, key, permits, Duration.ZERO, null));
	}

	/**
	 * The outcome to hand a caller: the stage itself when complete, else a copy of it, so that a caller that cancels
	 * it (a reactive subscriber whose client went away) cancels only its copy, and the decision, made in the backend
	 * all the same, is still recorded, remembered, reported to the breaker and its observation stopped, once.
	 */
	private static CompletionStage<RateLimitOutcome> detached(CompletionStage<RateLimitOutcome> outcome) {
		CompletableFuture<RateLimitOutcome> future = outcome.toCompletableFuture();
		return future.isDone() ? future : future.copy();
	}

	private CompletionStage<RateLimitOutcome> observedAsync(PolicyDefinition policy, PolicyPlan requested, String key,
			long permits, Duration reserve, @Nullable Receipts receipts) {
		String stored = policy.storedKey(key);
		if (this.observations.isNoop()) {
			return decideAsync(policy, requested, stored, permits, reserve, receipts);
		}
		RateLimitObservationContext context = new RateLimitObservationContext(policy.name(), requested.planTag(),
				this.backend.name());
		Observation observation = observation(context).start();
		CompletionStage<RateLimitOutcome> outcome;
		try (Observation.Scope scope = observation.openScope()) {
			outcome = decideAsync(policy, requested, stored, permits, reserve, receipts);
		}
		catch (RuntimeException | Error ex) {
			observation.error(ex);
			observation.stop();
			throw ex;
		}
		return outcome.whenComplete((decided, error) -> {
			if (error != null) {
				observation.error(error);
			}
			else {
				context.setOutcome(decided.kind().tag(), decided.plan().planTag());
			}
			observation.stop();
		});
	}

	/**
	 * Enforces a policy without waiting, as {@link #enforceAsync(PolicyDefinition, PolicyPlan, String, long)}, with its
	 * decision observed as a child of the given observation: for a decision made on another thread than the one its
	 * parent is in scope on (a later policy of a call, decided once the previous one answered).
	 * @param policy the policy
	 * @param requested the client's plan of it ({@link PolicyDefinition#planForAsync}), which the client's override,
	 * if any, replaces
	 * @param key the client's key, as its key strategy found it
	 * @param permits the permits the request consumes
	 * @param parent the observation to observe the decision under, as {@link #currentObservation()} gave it, or
	 * {@code null} for the one in scope
	 * @return the outcome, when known
	 */
	public CompletionStage<RateLimitOutcome> enforceAsync(PolicyDefinition policy, PolicyPlan requested, String key,
			long permits, @Nullable Observation parent) {
		return decideOnceAsync(policy, requested, key, permits, parent, Duration.ZERO, null);
	}

	/**
	 * One decision, under the given observation, reserving permits due within {@code reserve} where the limiter
	 * reserves ({@link RateLimiter#tryReserveAsync}), and, given {@code receipts}, taking them as a grant that can be
	 * given back where the limiter takes permits back ({@link RateLimiter#takesBack()}).
	 */
	private CompletionStage<RateLimitOutcome> decideOnceAsync(PolicyDefinition policy, PolicyPlan requested,
			String key, long permits, @Nullable Observation parent, Duration reserve, @Nullable Receipts receipts) {
		if (parent == null || this.observations.getCurrentObservation() == parent) {
			return detached(observedAsync(policy, requested, key, permits, reserve, receipts));
		}
		try (Observation.Scope scope = parent.openScope()) {
			return detached(observedAsync(policy, requested, key, permits, reserve, receipts));
		}
	}

	/**
	 * Enforces a policy as {@link #enforceAsync(PolicyDefinition, PolicyPlan, String, long, Observation)} does, a
	 * refused request waiting for its next permit up to {@code maxWait}: in its client's line in this instance, in
	 * arrival order, each refusal's retry-after (the backend's next permit) slept without holding a thread, then asked
	 * again ({@link PermitQueues}); where the policy's limiter {@linkplain RateLimiter#reserves() reserves} (token
	 * bucket, GCRA), each call reserves the request's permits when they come due within what is left of its wait, and
	 * the request sleeps until they are due while the next in line asks. Each call is enforced as any other, with the
	 * policy's failure mode: a fail-closed
	 * refusal and a cost above the capacity end the wait at once; failing open admits; the local fallback's refusal is
	 * waited out as the backend's is. A request whose next permit comes after its maximum wait is refused at once
	 * with the refusal.
	 * @param policy the policy
	 * @param requested the client's plan of it
	 * @param key the client's key, as its key strategy found it
	 * @param permits the permits the request consumes
	 * @param parent the observation to observe the decisions under, or {@code null} for the one in scope
	 * @param maxWait the longest the request waits; zero decides once
	 * @param continuation where the request's later calls are made and its outcome completes when not at once
	 * @return the outcome that ended the wait; cancelling it gives the request's place in line up
	 */
	public CompletionStage<RateLimitOutcome> enforceAsync(PolicyDefinition policy, PolicyPlan requested, String key,
			long permits, @Nullable Observation parent, Duration maxWait, Executor continuation) {
		if (maxWait.isZero()) {
			return enforceAsync(policy, requested, key, permits, parent);
		}
		Receipts receipts = new Receipts();
		return this.waits.acquire(new WaitLine(policy, key), permits, maxWait, new PermitQueues.Attempt<>() {

			@Override
			public CompletionStage<RateLimitOutcome> call(Duration remaining) {
				return decideOnceAsync(policy, requested, key, permits, parent, remaining, receipts);
			}

			@Override
			public void abandoned(RateLimitOutcome admission) {
				receipts.giveBack(admission.decision());
			}

			@Override
			public boolean admitted(RateLimitOutcome outcome) {
				return !outcome.refused();
			}

			@Override
			public Duration due(RateLimitOutcome admission) {
				// a reservation's permits come due later; every other admission's at once
				return (admission.kind() == RateLimitOutcome.Kind.ALLOWED) ? admission.decision().retryAfter()
						: Duration.ZERO;
			}

			@Override
			public @Nullable Duration retryAfter(RateLimitOutcome refusal) {
				Decision decision = refusal.decision();
				boolean waitable = refusal.kind() == RateLimitOutcome.Kind.DENIED
						|| refusal.kind() == RateLimitOutcome.Kind.FALLBACK;
				return (waitable && decision.satisfiable()) ? decision.retryAfter() : null;
			}

			@Override
			public @Nullable RateLimitOutcome emptied(RateLimitOutcome admission) {
				Decision taken = admission.decision();
				// a limiter that reserves lets the next caller reserve at once
				if (admission.kind() != RateLimitOutcome.Kind.ALLOWED || admission.plan().limiter().reserves()
						|| taken.remaining() > 0
						|| taken.nextPermitAfter().isZero()) {
					return null;
				}
				Duration next = taken.nextPermitAfter();
				return new RateLimitOutcome(policy, admission.plan(), new Decision(false, taken.limit(), 0, next,
						taken.resetAfter(), next, true, List.of(taken.limit())), RateLimitOutcome.Kind.DENIED, permits);
			}

			@Override
			public Duration spacing(RateLimitOutcome refusal) {
				return refusal.decision().limit().period().dividedBy(refusal.decision().limit().capacity());
			}

		}, continuation);
	}

	/**
	 * The observation in scope on the calling thread, to observe decisions made later on other threads under it.
	 * @return the observation, or {@code null} when there is none or decisions are not observed
	 */
	public @Nullable Observation currentObservation() {
		return this.observations.isNoop() ? null : this.observations.getCurrentObservation();
	}

	private Observation observation(RateLimitObservationContext context) {
		return Observation.createNotStarted(this.observationConvention, DefaultRateLimitObservationConvention.INSTANCE,
				() -> context, this.observations);
	}

	private CompletionStage<RateLimitOutcome> decideAsync(PolicyDefinition policy, PolicyPlan requested, String key,
			long permits, Duration reserve, @Nullable Receipts receipts) {
		PolicyPlan plan = overridden(requested, key);
		RateLimitOutcome early = beforeCall(policy, plan, key, permits);
		if (early != null) {
			return CompletableFuture.completedFuture(early);
		}
		// a cost above a capacity is refused whatever the client's state, which the limiter reads only to report it:
		// not a call the breaker judges the backend by (a probe's read that failed would close it), nor one it skips
		boolean unsatisfiable = permits > plan.policy().smallestCapacity();
		Call call = new Call(policy, plan, key, permits, unsatisfiable ? UNJUDGED : this.breaker.tryCall());
		if (call.ticket == CircuitBreaker.NOT_PERMITTED) {
			call.unanswered();
			return CompletableFuture.completedFuture(
					record(fail(policy, plan, key, permits, this.breaker.lastError(), true), -1));
		}
		CompletionStage<Decision> decision;
		try {
			RateLimiter limiter = plan.limiter();
			if (receipts != null) {
				// a waiting request: a grant a caller that gives up can give back, or a reservation
				decision = receipts.attempt(limiter, key, permits, reserve);
			}
			else {
				decision = reserve.isZero() ? limiter.tryAcquireAsync(key, permits)
						: limiter.tryReserveAsync(key, permits, reserve);
			}
		}
		catch (RuntimeException | LinkageError ex) {
			return CompletableFuture.completedFuture(call.failed(ex));
		}
		catch (Error error) {
			ignored(call.ticket);
			throw error;
		}
		// the deny cache first, on a stage a caller that goes away cannot cancel: a re-ask never stays open
		return decision.whenComplete(call::answered).handle(call::completed);
	}

	/**
	 * Whether {@link #enforceAsync} blocks its caller because the backend's client does
	 * ({@link RateLimiterBackend#blocking()}).
	 * @return whether reactive callers must call it on a thread that may block
	 */
	public boolean blocking() {
		return this.backend.blocking();
	}

	private PolicyPlan overridden(PolicyPlan plan, String key) {
		OverriddenPolicies applied = this.overrides;
		return (applied != null) ? applied.apply(plan, key) : plan;
	}

	/**
	 * The outcome of a request decided without a backend call (from a lease in hand, or a refusal remembered by the
	 * deny cache), or {@code null} when the backend must be asked.
	 */
	private @Nullable RateLimitOutcome beforeCall(PolicyDefinition policy, PolicyPlan plan, String key,
			long permits) {
		if (permits < 1) {
			throw new IllegalArgumentException("Permits must be at least 1, was " + permits);
		}
		Decision local = plan.limiter().tryFromLease(key, permits);
		if (local != null) {
			this.breaker.onLocalSuccess();
			return record(new RateLimitOutcome(policy, plan, local, RateLimitOutcome.Kind.ALLOWED, permits), -1);
		}
		Decision cached = (this.denyCache != null) ? this.denyCache.find(plan.scope(), key, permits) : null;
		if (cached == null || !namesOnlyLimitsOf(plan, cached)) {
			return null;
		}
		return record(new RateLimitOutcome(policy, plan, cached, deniedKind(policy), permits), -1);
	}

	/**
	 * Whether a remembered refusal names only the policy's limits. One made by limits a refresh has replaced is not the
	 * policy's answer: a request that read the policies just before the refresh swapped them is decided by the old
	 * limits, and its refusal is remembered if its call started after the refresh cleared the deny cache.
	 */
	private static boolean namesOnlyLimitsOf(PolicyPlan plan, Decision refusal) {
		List<Limit> limits = plan.policy().limits();
		return limits.contains(refusal.limit()) && limits.containsAll(refusal.violated());
	}

	/**
	 * One call of a policy's limiter, from the breaker's ticket to its outcome: what both paths do once the backend
	 * answered or failed.
	 */
	private final class Call {

		private final PolicyDefinition policy;

		private final PolicyPlan plan;

		private final String key;

		private final long permits;

		private final long ticket;

		private final long start = System.nanoTime();

		private final long denyCacheStart;

		Call(PolicyDefinition policy, PolicyPlan plan, String key, long permits, long ticket) {
			this.policy = policy;
			this.plan = plan;
			this.key = key;
			this.permits = permits;
			this.ticket = ticket;
			this.denyCacheStart = (RateLimitEnforcer.this.denyCache != null) ? RateLimitEnforcer.this.denyCache.now() : 0;
		}

		RateLimitOutcome completed(@Nullable Decision decision, @Nullable Throwable error) {
			if (error == null) {
				return decided(decision);
			}
			Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause()
					: error;
			if (cause instanceof RuntimeException || cause instanceof LinkageError) {
				return failed(cause);
			}
			ignored(this.ticket);
			if (cause instanceof Error fatal) {
				throw fatal;
			}
			throw new CompletionException(cause);
		}

		RateLimitOutcome decided(Decision decision) {
			long backendNanos = System.nanoTime() - this.start;
			if (this.ticket != UNJUDGED) {
				RateLimitEnforcer.this.breaker.onSuccess(this.ticket);
			}
			if (decision.allowed()) {
				return record(new RateLimitOutcome(this.policy, this.plan, decision, RateLimitOutcome.Kind.ALLOWED,
						this.permits), backendNanos);
			}
			return record(new RateLimitOutcome(this.policy, this.plan, decision, deniedKind(this.policy), this.permits),
					backendNanos);
		}

		RateLimitOutcome failed(Throwable error) {
			long backendNanos = System.nanoTime() - this.start;
			unanswered();
			boolean backendFailed = report(this.policy, this.ticket, error);
			RateLimitOutcome outcome = record(
					fail(this.policy, this.plan, this.key, this.permits, error, backendFailed), backendNanos);
			CompletionStage<Decision> late = RateLimitEnforcer.this.backend.lateDecision(error);
			if (late != null) {
				late.thenAccept((decision) -> decidedLate(decision, outcome));
			}
			return outcome;
		}

		/**
		 * Takes the backend's answer to this call, which came after it timed out and its failure mode stood in: a
		 * refusal is remembered as any refusal, and counted when the failure mode admitted the request.
		 */
		private void decidedLate(Decision decision, RateLimitOutcome stoodIn) {
			if (decision.allowed()) {
				return;
			}
			remember(decision);
			if (!stoodIn.refused() && !this.policy.shadow()) {
				for (RateLimitRecorder recorder : RateLimitEnforcer.this.recorders) {
					recorder.refusedLate(stoodIn);
				}
			}
		}

		/**
		 * Tells the deny cache how the backend answered this call: a refusal is remembered, and any answer ends the
		 * client's re-ask, were this call it.
		 */
		void answered(@Nullable Decision decision, @Nullable Throwable error) {
			DenyCache cache = RateLimitEnforcer.this.denyCache;
			if (cache == null) {
				return;
			}
			if (error != null || decision == null) {
				unanswered();
			}
			else if (decision.allowed()) {
				cache.admitted(this.plan.scope(), this.key, this.permits, this.denyCacheStart);
			}
			else {
				remember(decision);
			}
		}

		/**
		 * Tells the deny cache that this call gave no answer, so that, were it the client's re-ask, the next request
		 * asks again.
		 */
		void unanswered() {
			if (RateLimitEnforcer.this.denyCache != null) {
				RateLimitEnforcer.this.denyCache.unanswered(this.plan.scope(), this.key, this.denyCacheStart);
			}
		}

		private void remember(Decision refusal) {
			if (RateLimitEnforcer.this.denyCache != null) {
				RateLimitEnforcer.this.denyCache.remember(this.plan.scope(), this.key, this.permits, refusal,
						this.denyCacheStart);
			}
		}

	}

	private void failure(long ticket, Throwable error) {
		if (ticket != UNJUDGED) {
			this.breaker.onFailure(ticket, error);
		}
	}

	private void ignored(long ticket) {
		if (ticket != UNJUDGED) {
			this.breaker.onIgnored(ticket);
		}
	}

	/**
	 * Tells the breaker, the recorders and the log what a limiter's error was.
	 * @return whether the backend failed
	 */
	private boolean report(PolicyDefinition policy, long ticket, Throwable error) {
		if (error instanceof LinkageError incompatible) {
			failure(ticket, error);
			this.incompatibilities.error(error.toString(), "Rate limit backend '" + this.backend.name()
					+ "' cannot decide: " + IncompatibleLibrary.describe(incompatible)
					+ ". Every decision fails as if the backend were down, and each policy's failure mode applies, "
					+ "until the application runs a version of that library the starter supports", error);
			return true;
		}
		if (this.backend.isBackendFailure(error)) {
			failure(ticket, error);
			if (this.backend.isTimeout(error)) {
				for (RateLimitRecorder recorder : this.recorders) {
					recorder.timedOut(policy);
				}
			}
			return true;
		}
		ignored(ticket);
		if (Thread.currentThread().isInterrupted()) {
			logger.debug("Rate limit decision of policy '" + policy.name() + "' interrupted; failure mode "
					+ mode(policy) + " applied", error);
		}
		else {
			this.bugs.error(policy.name() + ":" + error.getClass().getName(), "Rate limit policy '" + policy.name()
					+ "' failed on a request, not because of its backend (failure mode " + mode(policy)
					+ " applied to that request only): " + error, error);
		}
		return false;
	}

	/**
	 * Forgets every refusal the deny cache remembers, as when the policies change: a client refused under the old
	 * limits is decided under the new ones at once.
	 */
	public void forgetDenials() {
		if (this.denyCache != null) {
			this.denyCache.clear();
		}
	}

	/**
	 * Forgets a client's state under a policy (under each of its plans, and its override), in the backend and in this
	 * instance's deny cache.
	 * @param policy the policy
	 * @param key the client's key, as its key strategy finds it
	 */
	public void reset(PolicyDefinition policy, String key) {
		List<PolicyPlan> scopes = new ArrayList<>(policy.plans());
		PolicyPlan overridden = planFor(policy, key, null).toCompletableFuture().join();
		if (!scopes.contains(overridden)) {
			scopes.add(overridden);
		}
		String stored = policy.storedKey(key);
		for (PolicyPlan scope : scopes) {
			scope.limiter().reset(stored);
			if (this.denyCache != null) {
				this.denyCache.forget(scope.scope(), stored);
			}
		}
	}

	/**
	 * The plan that decides a client now: its plan, or its override.
	 * @param policy the policy
	 * @param key the client's key, as its key strategy finds it (the plan resolver is given it so)
	 * @param request the request, or {@code null} to ask the plan resolver without one
	 * @return the plan, when known (the plan resolver never fails it: its default plan applies)
	 */
	public CompletionStage<PolicyPlan> planFor(PolicyDefinition policy, String key,
			@Nullable RateLimitRequest request) {
		String stored = policy.storedKey(key);
		return policy.planForAsync(key, request).thenApply((plan) -> overridden(plan, stored));
	}

	/**
	 * Checks the backend now, as a health indicator does. While the circuit breaker is open the answer costs nothing;
	 * otherwise it is the backend's {@linkplain RateLimiterBackend#check() check} (for Redis, one script call bounded
	 * by the decision timeout), which also serves as the breaker's probe, so that the breaker closes again even with
	 * no traffic. A backend's failure counts against the breaker (a {@link LinkageError} too: a library of the
	 * backend's that is not the version it was built against fails every call, as decisions count it); anything else
	 * does not, and an {@link Error} leaves the probe slot free and is thrown.
	 * @return {@code null} while the backend decides; otherwise what fails: the error and, when it wraps another
	 * (Redis' own error reply, such as {@code OOM command not allowed}), the most specific cause; for a
	 * {@link LinkageError}, the library it shows to be incompatible; {@code circuit open} with no error on record
	 */
	public @Nullable String checkBackend() {
		long ticket = this.breaker.tryCall();
		if (ticket == CircuitBreaker.NOT_PERMITTED) {
			Throwable error = this.breaker.lastError();
			return (error != null) ? describe(error) : "circuit open";
		}
		try {
			this.backend.check();
		}
		catch (RuntimeException | LinkageError ex) {
			// an answer, not thrown: a Redis outage would otherwise log a stack trace on every poll
			if (ex instanceof LinkageError || this.backend.isBackendFailure(ex)) {
				this.breaker.onFailure(ticket, ex);
			}
			else {
				this.breaker.onIgnored(ticket);
			}
			return describe(ex);
		}
		catch (Error error) {
			this.breaker.onIgnored(ticket);
			throw error;
		}
		this.breaker.onSuccess(ticket);
		return null;
	}

	private static String describe(Throwable error) {
		if (error instanceof LinkageError incompatible) {
			return IncompatibleLibrary.describe(incompatible);
		}
		String description = error.getClass().getName() + ": " + error.getMessage();
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(error);
		return (cause != error) ? description + " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")"
				: description;
	}

	/**
	 * The outcome the policy's failure mode gives a request its limiter could not decide.
	 * @param backendFailed whether the backend failed (or the breaker is open), so that a warning is due
	 */
	private RateLimitOutcome fail(PolicyDefinition policy, PolicyPlan plan, String key, long permits,
			@Nullable Throwable error, boolean backendFailed) {
		return switch (policy.failureMode()) {
			case OPEN -> {
				warn(backendFailed, policy, "letting requests through (failure-mode open)", error);
				Limit limit = plan.policy().limits().get(0);
				yield new RateLimitOutcome(policy, plan,
						new Decision(true, limit, limit.capacity(), Duration.ZERO, Duration.ZERO, Duration.ZERO, true,
								List.of()),
						RateLimitOutcome.Kind.FAILED_OPEN, permits);
			}
			case CLOSED -> {
				warn(backendFailed, policy, "refusing requests with 503 (failure-mode closed)", error);
				yield refusal(policy, plan, permits);
			}
			case LOCAL -> {
				warn(backendFailed, policy, "deciding with this instance's limiter, limits divided by " + this.fallbackInstances
						+ " (failure-mode local)", error);
				yield local(policy, plan, key, permits);
			}
		};
	}

	/**
	 * The local limiter's outcome, or, when it fails on this request too (a bug in its inputs, which neither limiter
	 * can decide), a 503 refusal: a request that breaks limiting is not let through unlimited.
	 */
	private RateLimitOutcome local(PolicyDefinition policy, PolicyPlan plan, String key, long permits) {
		try {
			return new RateLimitOutcome(policy, plan, fallback(plan).tryAcquire(key, permits),
					RateLimitOutcome.Kind.FALLBACK, permits);
		}
		catch (RuntimeException ex) {
			this.bugs.error(policy.name() + ":local:" + ex.getClass().getName(), "The local limiter of rate limit policy '"
					+ policy.name() + "' failed on a request too; refusing it with 503: " + ex, ex);
			return refusal(policy, plan, permits);
		}
	}

	private RateLimitOutcome refusal(PolicyDefinition policy, PolicyPlan plan, long permits) {
		Limit limit = plan.policy().limits().get(0);
		return new RateLimitOutcome(policy, plan,
				new Decision(false, limit, 0, this.breaker.retryAfter(), Duration.ZERO, this.breaker.retryAfter(), true,
						plan.policy().limits()),
				RateLimitOutcome.Kind.FAILED_CLOSED, permits);
	}

	private RateLimiter fallback(PolicyPlan plan) {
		return this.fallbacks.computeIfAbsent(plan.policy(),
				(shared) -> this.fallbackBackend.create(shared.dividedBy(this.fallbackInstances)));
	}

	private static String mode(PolicyDefinition policy) {
		return policy.failureMode().name().toLowerCase(Locale.ROOT);
	}

	private void warn(boolean backendFailed, PolicyDefinition policy, String action, @Nullable Throwable error) {
		if (!backendFailed) {
			return;
		}
		long next = this.nextWarning.get();
		long now = System.nanoTime();
		if (now - next >= 0 && this.nextWarning.compareAndSet(next, now + WARNING_INTERVAL_SECONDS * 1_000_000_000L)) {
			logger.warn("Rate limit backend unavailable for policy '" + policy.name() + "', " + action + ": "
					+ ((error != null) ? error.getMessage() : "circuit open") + " (logged at most every "
					+ WARNING_INTERVAL_SECONDS + " s)");
		}
	}

	private static RateLimitOutcome.Kind deniedKind(PolicyDefinition policy) {
		return policy.shadow() ? RateLimitOutcome.Kind.SHADOW_DENIED : RateLimitOutcome.Kind.DENIED;
	}

	/**
	 * The latest grant of a waiting request by a limiter that takes permits back, to give back when the request gives
	 * up before it uses them.
	 */
	/**
	 * A waiting request's receipt ({@link WaitReceipt}) at the limiter of the plan it was last decided by (a request's
	 * plan may change between its attempts, when a refresh replaces the policy).
	 */
	private static final class Receipts {

		private volatile @Nullable WaitReceipt latest;

		CompletionStage<Decision> attempt(RateLimiter limiter, String storedKey, long permits, Duration reserve) {
			WaitReceipt receipt = this.latest;
			if (receipt == null || !receipt.isFor(limiter, storedKey)) {
				receipt = new WaitReceipt(limiter, storedKey, permits);
				this.latest = receipt;
			}
			return receipt.attempt(reserve);
		}

		void giveBack(Decision admission) {
			WaitReceipt receipt = this.latest;
			if (receipt == null) {
				return;
			}
			receipt.giveBack(admission).whenComplete((back, error) -> {
				if (error != null) {
					logger.debug("Could not give back permits of a grant nobody used", error);
				}
			});
		}

	}

	/**
	 * The line of a policy's client waiting for permits.
	 */
	private record WaitLine(PolicyDefinition policy, String key) {

	}

	/**
	 * Tells the recorders of waits.
	 */
	private final class WaitEvents implements PermitQueues.Events<RateLimitOutcome> {

		@Override
		public void started(Object line) {
			for (RateLimitRecorder recorder : RateLimitEnforcer.this.recorders) {
				recorder.waitStarted(((WaitLine) line).policy());
			}
		}

		@Override
		public void ended(Object line, Duration waited, PermitQueues.Ending ending) {
			for (RateLimitRecorder recorder : RateLimitEnforcer.this.recorders) {
				recorder.waitEnded(((WaitLine) line).policy(), waited, ending);
			}
		}

		@Override
		public void abandoned(Object line, RateLimitOutcome admission) {
			for (RateLimitRecorder recorder : RateLimitEnforcer.this.recorders) {
				recorder.waitAbandoned(admission);
			}
		}

	}

	private RateLimitOutcome record(RateLimitOutcome outcome, long backendNanos) {
		for (RateLimitRecorder recorder : this.recorders) {
			recorder.record(outcome, backendNanos);
		}
		return outcome;
	}

}
