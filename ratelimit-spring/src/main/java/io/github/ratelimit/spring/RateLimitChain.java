package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;


/**
 * The one per-request chain: the policies that apply to a request (or to a {@code @RateLimited} call), one after the
 * other, each from the client's key to its plan or override, its decision and its charge, to the request's
 * {@link Verdict}: admitted, with the outcome whose headers the response shows, or refused by the first policy that
 * refuses it. Both web filters and every {@code @RateLimited} return type only translate a request in and the verdict
 * out; none of them loops over policies or decides.
 * <p>
 * A step whose stage is complete at once (a key in the request, no plan resolver to wait for, a lease in hand, the
 * deny cache, an open breaker, the in-memory backend) continues on the thread that started it; a step that waits
 * continues on the {@code continuation} executor the adapter gives, never on the thread that completed it (Lettuce's
 * event loop, a plan resolver's thread): the calling thread itself for an adapter that waits
 * ({@link CallingThread}), a WebFlux connection's event loop, or an executor of the application's.
 * <p>
 * A policy already charged for the same client in the same request (by the filter) is not charged again. The chain
 * never completes exceptionally for a decision (the enforcer applies each policy's failure mode); it does when a key
 * resolver, a plan resolver or a step's cost fails, with that error.
 */
public final class RateLimitChain {

	private final RateLimitEnforcer enforcer;

	/**
	 * Creates the chain of an enforcer's decisions.
	 * @param enforcer the enforcer
	 */
	public RateLimitChain(RateLimitEnforcer enforcer) {
		this.enforcer = enforcer;
	}

	/**
	 * Decides a request's policies, in order.
	 * @param request the request, or {@code null} for a {@code @RateLimited} call outside one
	 * @param steps the policies that apply, in order
	 * @param charges whether an admitted policy is recorded as charged for the request's client, so that a
	 * {@code @RateLimited} method naming it is not charged again in that request (the filter's policies)
	 * @param continuation where a step that had to wait continues
	 * @param parent the observation to observe the decisions under, or {@code null} for the one in scope on the
	 * thread that makes each decision
	 * @return the verdict
	 */
	public CompletableFuture<Verdict> decide(@Nullable RateLimitRequest request, List<? extends Step> steps,
			boolean charges, Executor continuation, @Nullable Observation parent) {
		CompletableFuture<Verdict> verdict = new CompletableFuture<>();
		new Walk(request, steps, charges, continuation, parent, verdict).step(0, null);
		return verdict;
	}

	/**
	 * Decides a request's policies for a caller that must have the verdict (the servlet filter, a blocking
	 * {@code @RateLimited} method): the chain's continuations run on the calling thread itself ({@link CallingThread}),
	 * so that no key or plan resolver of the application's runs on the backend client's event loop, and the decisions
	 * are observed under the observation in scope on it.
	 * @param request the request, or {@code null} for a {@code @RateLimited} call outside one
	 * @param steps the policies that apply, in order
	 * @param charges as for {@link #decide}
	 * @return the verdict
	 * @throws RuntimeException the chain's error, as it is
	 * @throws java.util.concurrent.CancellationException when a step that may wait for a permit is waiting and the
	 * calling thread is interrupted: the wait ends and the thread keeps its interrupt flag
	 */
	public Verdict await(@Nullable RateLimitRequest request, List<? extends Step> steps, boolean charges) {
		@Nullable Observation parent = currentObservation();
		return CallingThread.await((thread) -> decide(request, steps, charges, thread, parent), mayWait(steps));
	}

	/**
	 * Whether a step may wait for a permit: then a caller that continues where each stage completes must give an
	 * executor of its own, or its calls after a wait would run on the waiting callers' one timer thread.
	 * @param steps the policies that apply
	 * @return whether one may wait (a loop, not a stream: this runs on every blocking request)
	 */
	public static boolean mayWait(List<? extends Step> steps) {
		for (int i = 0; i < steps.size(); i++) {
			if (!steps.get(i).maxWait().isZero()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The observation in scope on the calling thread, to observe the decisions of a chain under it wherever they are
	 * made.
	 * @return the observation, or {@code null} when there is none or decisions are not observed
	 */
	public @Nullable Observation currentObservation() {
		return this.enforcer.currentObservation();
	}

	/**
	 * Whether deciding blocks the thread that decides because the backend's client does (Jedis): a reactive adapter
	 * decides on a thread that may block.
	 * @return whether it blocks
	 */
	public boolean blocking() {
		return this.enforcer.blocking();
	}

	/**
	 * One policy as an adapter applies it to a request: where the client's key comes from, and what the request
	 * costs.
	 */
	public interface Step {

		/**
		 * The policy.
		 * @return the policy
		 */
		PolicyDefinition policy();

		/**
		 * The client's key.
		 * @param request the request, or {@code null} outside one
		 * @return the key, when known
		 */
		CompletionStage<String> key(@Nullable RateLimitRequest request);

		/**
		 * The permits the request takes under the client's plan: the plan's configured {@code cost}, or the
		 * annotation's {@code cost} evaluated for the call.
		 * @param plan the client's plan of the policy (its own limits, for a policy without plans)
		 * @param request the request, or {@code null} outside one
		 * @return the permits, at least 1
		 */
		long permits(PolicyPlan plan, @Nullable RateLimitRequest request);

		/**
		 * How long a refused request waits for its next permit before it is refused: the policy's {@code max-wait}, or the
		 * annotation's {@code maxWait}.
		 * @return the longest wait; zero refuses at once
		 */
		default Duration maxWait() {
			return policy().maxWait();
		}

		/**
		 * The step of a web filter's policy: the key from the policy's key strategy, the cost of the client's plan.
		 * @param policy the policy
		 * @return the step
		 */
		static Step of(PolicyDefinition policy) {
			return new PolicyStep(policy);
		}

	}

	/**
	 * What a chain decided for a request.
	 * @param shown the admitted outcome whose headers the response shows, or {@code null} for none
	 * @param refusal the outcome of the policy that refused the request, or {@code null} when admitted
	 */
	public record Verdict(@Nullable RateLimitOutcome shown, @Nullable RateLimitOutcome refusal) {

		/**
		 * Whether every policy admitted the request.
		 * @return whether it was admitted
		 */
		public boolean admitted() {
			return this.refusal == null;
		}

	}

	private record PolicyStep(PolicyDefinition policy) implements Step {

		@Override
		public CompletionStage<String> key(@Nullable RateLimitRequest request) {
			if (request == null) {
				throw new IllegalArgumentException("A web filter's policy decides a request");
			}
			return this.policy.keyOfAsync(request);
		}

		@Override
		public long permits(PolicyPlan plan, @Nullable RateLimitRequest request) {
			return plan.cost();
		}

	}

	/**
	 * One request's walk through its steps, each stage continuing at once when complete, else on the continuation
	 * executor.
	 */
	private final class Walk {

		private final @Nullable RateLimitRequest request;

		private final List<? extends Step> steps;

		private final boolean charges;

		private final Executor continuation;

		private final @Nullable Observation parent;

		private final CompletableFuture<Verdict> verdict;

		Walk(@Nullable RateLimitRequest request, List<? extends Step> steps, boolean charges, Executor continuation,
				@Nullable Observation parent, CompletableFuture<Verdict> verdict) {
			this.request = request;
			this.steps = steps;
			this.charges = charges;
			this.continuation = continuation;
			this.parent = parent;
			this.verdict = verdict;
		}

		void step(int index, @Nullable RateLimitOutcome shown) {
			if (this.verdict.isDone()) {
				// cancelled by its caller (a reactive subscriber gone): the next policies are not asked for it
				return;
			}
			if (index == this.steps.size()) {
				this.verdict.complete(new Verdict(shown, null));
				return;
			}
			Step step = this.steps.get(index);
			then(() -> step.key(this.request), (key) -> {
				if (this.request != null && RequestRateLimits.of(this.request).isCharged(step.policy(), key)) {
					step(index + 1, shown);
					return;
				}
				then(() -> step.policy().planForAsync(key, this.request),
						(plan) -> then(() -> enforce(step, plan, key),
								(outcome) -> decided(index, shown, step, key, outcome)));
			});
		}

		/**
		 * Decides one policy; a policy that may wait waits in its client's line, which a cancelled verdict leaves.
		 */
		private CompletionStage<RateLimitOutcome> enforce(Step step, PolicyPlan plan, String key) {
			long permits = step.permits(plan, this.request);
			Duration maxWait = step.maxWait();
			if (maxWait.isZero()) {
				return RateLimitChain.this.enforcer.enforceAsync(step.policy(), plan, key, permits, this.parent);
			}
			CompletableFuture<RateLimitOutcome> waited = RateLimitChain.this.enforcer
				.enforceAsync(step.policy(), plan, key, permits, this.parent, maxWait, this.continuation)
				.toCompletableFuture();
			this.verdict.whenComplete((verdict, error) -> {
				if (this.verdict.isCancelled()) {
					waited.cancel(false);
				}
			});
			return waited;
		}

		private void decided(int index, @Nullable RateLimitOutcome shown, Step step, String key,
				RateLimitOutcome outcome) {
			if (outcome.refused()) {
				this.verdict.complete(new Verdict(null, outcome));
				return;
			}
			RateLimitOutcome next = shown;
			if (this.request != null) {
				RequestRateLimits limits = RequestRateLimits.of(this.request);
				if (this.charges) {
					limits.charged(step.policy(), key);
				}
				if (limits.show(outcome)) {
					next = outcome;
				}
			}
			else if (RequestRateLimits.bindsMore(outcome, shown)) {
				next = outcome;
			}
			step(index + 1, next);
		}

		/**
		 * Continues with a stage's value: at once when it is complete, else on the continuation executor; the walk
		 * ends with the error of a stage that fails, or of a continuation that throws.
		 */
		private <T> void then(Stage<T> start, Continuation<T> next) {
			CompletableFuture<T> stage;
			try {
				stage = start.get().toCompletableFuture();
			}
			catch (Throwable ex) {
				this.verdict.completeExceptionally(ex);
				return;
			}
			if (stage.isDone()) {
				// read where it is: a dependent stage for a value already there only costs a request more
				T value;
				try {
					value = stage.join();
				}
				catch (Throwable error) {
					this.verdict.completeExceptionally(unwrap(error));
					return;
				}
				resume(value, null, next);
				return;
			}
			stage.whenComplete((value, error) -> {
				try {
					this.continuation.execute(() -> resume(value, error, next));
				}
				catch (Throwable ex) {
					this.verdict.completeExceptionally(ex);
				}
			});
		}

		private <T> void resume(@Nullable T value, @Nullable Throwable error, Continuation<T> next) {
			if (error != null) {
				this.verdict.completeExceptionally(unwrap(error));
				return;
			}
			try {
				next.accept(value);
			}
			catch (Throwable ex) {
				this.verdict.completeExceptionally(ex);
			}
		}

	}

	private static Throwable unwrap(Throwable error) {
		return (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
	}

	@FunctionalInterface
	private interface Stage<T> {

		CompletionStage<T> get();

	}

	@FunctionalInterface
	private interface Continuation<T> {

		void accept(T value);

	}

}
