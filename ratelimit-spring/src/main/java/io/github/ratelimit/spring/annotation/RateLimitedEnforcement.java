package io.github.ratelimit.spring.annotation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.RateLimitedCostException;
import io.github.ratelimit.spring.RequestKeyResolvers;
import io.github.ratelimit.spring.annotation.RateLimitedPolicies.AnnotatedPolicy;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;

/**
 * Enforces the policies of one call of a {@link RateLimited} method, in order, the first refusal ending it: the one
 * place that keys and costs a call's policies, for the {@link RateLimitChain} that decides them, waiting for the
 * verdict ({@link #enforce}) or not ({@link #enforceAsync}). Inside a web request, a policy the filter already charged for the same client is not
 * charged again, and the response shows the headers of the outcome that binds most, whichever path decided it.
 * <p>
 * A key expression that yields nothing or fails counts the call under the client's IP address inside a web request
 * (as a key strategy that finds nothing does), else under one global key, and is logged. A cost expression that does
 * not come to a whole number of at least 1 refuses the call with {@link RateLimitedCostException} (400).
 */
final class RateLimitedEnforcement {

	private static final Log logger = LogFactory.getLog(RateLimitedInterceptor.class);

	private final RateLimitChain chain;

	private final RateLimitHeaders headers;

	private final IpKeys ipKeys;

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	RateLimitedEnforcement(RateLimitEnforcer enforcer, RateLimitHeaders headers, IpKeys ipKeys) {
		this.chain = new RateLimitChain(enforcer);
		this.headers = headers;
		this.ipKeys = ipKeys;
	}

	/**
	 * Whether deciding blocks the calling thread, even through {@link #enforceAsync}, because the backend's client
	 * does (Jedis).
	 */
	boolean blocking() {
		return this.chain.blocking();
	}

	/**
	 * Whether a policy of a call may wait for a permit.
	 */
	boolean mayWait(List<AnnotatedPolicy> limits) {
		for (AnnotatedPolicy limit : limits) {
			if (!limit.maxWait().isZero()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Enforces the policies of a call, waiting for the verdict on the calling thread
	 * ({@link io.github.ratelimit.spring.RateLimitChain#await}).
	 * @throws org.springframework.web.ErrorResponseException the refusal, or a {@link RateLimitedCostException}
	 */
	void enforce(List<AnnotatedPolicy> limits, @Nullable Object[] args, CurrentRequest current) {
		RateLimitRequest request = current.request();
		admit(this.chain.await(request, steps(limits, args), false), request, current);
	}

	/**
	 * Enforces the policies of a call without waiting: the same keys, costs and outcomes as {@link #enforce}. The
	 * result is complete at once when every decision is (the deny cache, an open breaker, the in-memory backend);
	 * otherwise a policy that waited continues on the given executor, and the result completes there, exceptionally
	 * (possibly wrapped in a {@link java.util.concurrent.CompletionException}) with the refusal or a
	 * {@link RateLimitedCostException}. It never throws. Each decision is observed under the observation in scope
	 * when the call began. Cancelling the result cancels the call's policies not yet decided, and gives up its place
	 * in a line of calls waiting for a permit.
	 */
	CompletableFuture<Void> enforceAsync(List<AnnotatedPolicy> limits, @Nullable Object[] args, CurrentRequest current,
			Executor continuation) {
		RateLimitRequest request = current.request();
		CompletableFuture<RateLimitChain.Verdict> verdict = this.chain.decide(request, steps(limits, args), false,
				continuation, this.chain.currentObservation());
		CompletableFuture<Void> admitted = verdict.thenAccept((decided) -> admit(decided, request, current));
		// a caller that gives up (a reactive subscriber gone) gives up its place in a line of waiting calls
		admitted.whenComplete((ignored, error) -> {
			if (admitted.isCancelled()) {
				verdict.cancel(false);
			}
		});
		return admitted;
	}

	private List<RateLimitChain.Step> steps(List<AnnotatedPolicy> limits, @Nullable Object[] args) {
		List<RateLimitChain.Step> steps = new ArrayList<>(limits.size());
		for (AnnotatedPolicy limit : limits) {
			steps.add(new AnnotatedStep(limit, args));
		}
		return steps;
	}

	/**
	 * Throws the refusal of a refused call; shows the headers of the outcome that binds most.
	 */
	private void admit(RateLimitChain.Verdict verdict, @Nullable RateLimitRequest request, CurrentRequest current) {
		RateLimitOutcome refusal = verdict.refusal();
		if (refusal != null) {
			throw refusal.refusal((request != null) ? request.uri() : null);
		}
		RateLimitOutcome shown = verdict.shown();
		if (shown != null) {
			BiConsumer<String, String> responseHeaders = current.responseHeaders();
			if (responseHeaders != null) {
				this.headers.write(shown, responseHeaders);
			}
		}
	}

	/**
	 * A policy of a call: keyed by the annotation's key expression (else the policy's key strategy), costing the
	 * annotation's cost expression (else the client's plan's cost).
	 */
	private final class AnnotatedStep implements RateLimitChain.Step {

		private final AnnotatedPolicy limit;

		private final @Nullable Object[] args;

		AnnotatedStep(AnnotatedPolicy limit, @Nullable Object[] args) {
			this.limit = limit;
			this.args = args;
		}

		@Override
		public PolicyDefinition policy() {
			return this.limit.policy();
		}

		/**
		 * A call's key: the annotation's key expression's, else the policy's key strategy's inside a web request, else
		 * the global key; an expression that yields nothing counts the call as the policy's key strategy would not
		 * find a key ({@link RequestKeyResolvers#keyOf}).
		 */
		@Override
		public CompletionStage<String> key(@Nullable RateLimitRequest request) {
			Expression expression = this.limit.key();
			if (expression == null) {
				return (request != null) ? this.limit.policy().keyOfAsync(request)
						: CompletableFuture.completedFuture(RequestKeyResolvers.GLOBAL_KEY);
			}
			String description = "@RateLimited key '" + expression.getExpressionString() + "' on "
					+ this.limit.declaration().methodName();
			return CompletableFuture.completedFuture(RequestKeyResolvers.keyOf(description, () -> {
				Object value = expression.getValue(context(this.limit, this.args, request));
				return (value != null) ? value.toString() : null;
			}, request, RateLimitedEnforcement.this.ipKeys));
		}

		@Override
		public long permits(PolicyPlan plan, @Nullable RateLimitRequest request) {
			return RateLimitedEnforcement.this.permits(this.limit, plan, this.args, request);
		}

		@Override
		public Duration maxWait() {
			return this.limit.maxWait();
		}

	}

	/**
	 * The permits a call costs: the annotation's cost, else the cost of the client's plan (or of the policy).
	 */
	private long permits(AnnotatedPolicy limit, PolicyPlan plan, @Nullable Object[] args,
			@Nullable RateLimitRequest request) {
		Expression expression = limit.cost();
		return (expression != null) ? cost(limit, expression, args, request) : plan.cost();
	}

	private long cost(AnnotatedPolicy limit, Expression expression, @Nullable Object[] args,
			@Nullable RateLimitRequest request) {
		Object value;
		try {
			value = expression.getValue(context(limit, args, request));
		}
		catch (RuntimeException ex) {
			throw invalidCost(limit, expression, "failed: " + ex.getMessage(), ex);
		}
		Long permits = wholePermits(value);
		if (permits == null || permits < 1) {
			throw invalidCost(limit, expression, "came to " + value, null);
		}
		return permits;
	}

	/**
	 * A cost as whole permits: integers as they are, fractions rounded up, numbers beyond a long saturated (such a
	 * cost exceeds every capacity and is refused as never satisfiable).
	 */
	private static @Nullable Long wholePermits(@Nullable Object value) {
		if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
			return ((Number) value).longValue();
		}
		BigDecimal decimal = decimal(value);
		if (decimal == null) {
			return null;
		}
		BigInteger whole = decimal.setScale(0, RoundingMode.CEILING).toBigInteger();
		return (whole.bitLength() < 64) ? whole.longValue() : (whole.signum() < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
	}

	private static @Nullable BigDecimal decimal(@Nullable Object value) {
		try {
			if (value instanceof BigDecimal decimal) {
				return decimal;
			}
			if (value instanceof BigInteger integer) {
				return new BigDecimal(integer);
			}
			if (value instanceof Number number) {
				return new BigDecimal(number.toString());
			}
			if (value instanceof CharSequence text) {
				return new BigDecimal(text.toString().trim());
			}
		}
		catch (NumberFormatException ex) {
			// NaN, infinities and text that is not a number
		}
		return null;
	}

	private static RateLimitedCostException invalidCost(AnnotatedPolicy limit, Expression expression, String what,
			@Nullable Throwable cause) {
		String reason = "@RateLimited cost '" + expression.getExpressionString() + "' on "
				+ limit.declaration().methodName() + " " + what + "; a call costs a whole number of at least 1 permit";
		logger.debug(reason, cause);
		return new RateLimitedCostException(reason, cause);
	}

	private MethodBasedEvaluationContext context(AnnotatedPolicy limit, @Nullable Object[] args,
			@Nullable RateLimitRequest request) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, limit.declaration().method(),
				args, this.parameterNames);
		if (request != null) {
			context.setVariable("request", request.nativeRequest());
			context.setVariable("principal", request.principal());
		}
		return context;
	}

}
