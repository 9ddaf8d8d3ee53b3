package io.github.ratelimit.spring.annotation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.FirstWarning;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.RequestKeyResolvers;
import io.github.ratelimit.spring.annotation.RateLimitedPolicies.AnnotatedPolicy;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.util.StringUtils;

/**
 * Enforces the policies of one call of a {@link RateLimited} method, in order, the first refusal ending it: the one
 * place that keys, costs and decides a call, waiting for each decision ({@link #enforce}) or not
 * ({@link #enforceAsync}). Inside a web request, a policy the filter already charged for the same client is not
 * charged again, and the response shows the headers of the outcome that binds most, whichever path decided it.
 * <p>
 * A key expression that yields nothing or fails counts the call under the client's IP address inside a web request
 * (as a key strategy that finds nothing does), else under one global key, and is logged. A cost expression that does
 * not come to a whole number of at least 1 refuses the call with {@link RateLimitedCostException} (400).
 */
final class RateLimitedEnforcement {

	private static final Log logger = LogFactory.getLog(RateLimitedInterceptor.class);

	private static final CompletableFuture<Void> ADMITTED = CompletableFuture.completedFuture(null);

	private final RateLimitEnforcer enforcer;

	private final RateLimitHeaders headers;

	private final IpKeys ipKeys;

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final FirstWarning keyFailures = new FirstWarning(logger);

	RateLimitedEnforcement(RateLimitEnforcer enforcer, RateLimitHeaders headers, IpKeys ipKeys) {
		this.enforcer = enforcer;
		this.headers = headers;
		this.ipKeys = ipKeys;
	}

	/**
	 * Whether deciding blocks the calling thread, even through {@link #enforceAsync}, because the backend's client
	 * does (Jedis).
	 */
	boolean blocking() {
		return this.enforcer.blocking();
	}

	/**
	 * Enforces the policies of a call, waiting for each decision.
	 * @throws org.springframework.web.ErrorResponseException the refusal, or a {@link RateLimitedCostException}
	 */
	void enforce(List<AnnotatedPolicy> limits, @Nullable Object[] args, CurrentRequest current) {
		RateLimitRequest request = current.request();
		for (AnnotatedPolicy limit : limits) {
			String key = key(limit, args, request);
			if (!isCharged(limit, key, request)) {
				PolicyDefinition plan = limit.policy().planFor(key, request);
				admit(this.enforcer.enforce(plan, key, permits(limit, plan, args, request)), request, current);
			}
		}
	}

	/**
	 * Enforces the policies of a call without waiting: the same keys, costs and outcomes as {@link #enforce}. The
	 * result is complete at once when every decision is (the deny cache, an open breaker, the in-memory backend);
	 * otherwise it completes on the thread that answered last (Lettuce's event loop), exceptionally (possibly
	 * wrapped in a {@link java.util.concurrent.CompletionException}) with the refusal or a
	 * {@link RateLimitedCostException}. It never throws.
	 */
	CompletableFuture<Void> enforceAsync(List<AnnotatedPolicy> limits, @Nullable Object[] args,
			CurrentRequest current) {
		@Nullable Observation parent = this.enforcer.currentObservation();
		return ADMITTED.thenCompose((ignored) -> enforceAsync(limits, 0, args, current.request(), current, parent));
	}

	/**
	 * Enforces the policies from the index on; each decision is observed under the observation in scope when the
	 * call began, although the later ones are made on the thread that answered the previous one.
	 */
	private CompletableFuture<Void> enforceAsync(List<AnnotatedPolicy> limits, int index, @Nullable Object[] args,
			@Nullable RateLimitRequest request, CurrentRequest current, @Nullable Observation parent) {
		if (index == limits.size()) {
			return ADMITTED;
		}
		AnnotatedPolicy limit = limits.get(index);
		return keyAsync(limit, args, request).thenCompose((key) -> {
			if (isCharged(limit, key, request)) {
				return ADMITTED;
			}
			return limit.policy()
				.planForAsync(key, request)
				.thenCompose((plan) -> this.enforcer.enforceAsync(plan, key, permits(limit, plan, args, request), parent))
				.thenAccept((outcome) -> admit(outcome, request, current));
		}).thenCompose((ignored) -> enforceAsync(limits, index + 1, args, request, current, parent));
	}

	private static boolean isCharged(AnnotatedPolicy limit, String key, @Nullable RateLimitRequest request) {
		return request != null && request.rateLimits().isCharged(limit.policy(), key);
	}

	/**
	 * Throws the refusal of a refused outcome; shows an admitted one's headers when it binds most.
	 */
	private void admit(RateLimitOutcome outcome, @Nullable RateLimitRequest request, CurrentRequest current) {
		if (outcome.refused()) {
			throw outcome.refusal((request != null) ? request.uri() : null);
		}
		if (request != null && request.rateLimits().show(outcome)) {
			BiConsumer<String, String> responseHeaders = current.responseHeaders();
			if (responseHeaders != null) {
				this.headers.write(outcome, responseHeaders);
			}
		}
	}

	private CompletableFuture<String> keyAsync(AnnotatedPolicy limit, @Nullable Object[] args,
			@Nullable RateLimitRequest request) {
		if (limit.key() == null && request != null) {
			return limit.policy().keyOfAsync(request).toCompletableFuture();
		}
		return CompletableFuture.completedFuture(key(limit, args, request));
	}

	private String key(AnnotatedPolicy limit, @Nullable Object[] args, @Nullable RateLimitRequest request) {
		Expression expression = limit.key();
		if (expression == null) {
			return (request != null) ? limit.policy().keyOf(request) : RequestKeyResolvers.GLOBAL_KEY;
		}
		String key = evaluateKey(limit, expression, args, request);
		if (request == null) {
			return StringUtils.hasLength(key) ? key : RequestKeyResolvers.GLOBAL_KEY;
		}
		return RequestKeyResolvers.orIp((current) -> key, this.ipKeys).resolve(request);
	}

	private @Nullable String evaluateKey(AnnotatedPolicy limit, Expression expression, @Nullable Object[] args,
			@Nullable RateLimitRequest request) {
		try {
			Object value = expression.getValue(context(limit, args, request));
			return (value != null) ? value.toString() : null;
		}
		catch (RuntimeException ex) {
			this.keyFailures.log(limit.declaration(), "@RateLimited key '" + expression.getExpressionString() + "' on "
					+ limit.declaration().methodName() + " failed, counting the call under the "
					+ ((request != null) ? "client's IP address" : "global key") + ": " + ex.getMessage());
			return null;
		}
	}

	/**
	 * The permits a call costs: the annotation's cost, else the cost of the client's plan (or of the policy).
	 */
	private long permits(AnnotatedPolicy limit, PolicyDefinition plan, @Nullable Object[] args,
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
