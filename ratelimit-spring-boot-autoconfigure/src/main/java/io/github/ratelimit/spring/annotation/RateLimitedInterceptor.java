package io.github.ratelimit.spring.annotation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.security.Principal;
import java.util.List;
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
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.util.StringUtils;

/**
 * Enforces the policies of a {@link RateLimited} method before the call proceeds: each policy once, the first refusal
 * throwing. Inside a web request, a policy the filter already charged for the same client is not charged again, and
 * the response shows the headers of the outcome that binds most, whichever path decided it.
 * <p>
 * A key expression that yields nothing or fails counts the call under the client's IP address inside a web request
 * (as a key strategy that finds nothing does), else under one global key, and is logged. A cost expression that does
 * not come to a whole number of at least 1 refuses the call with {@link RateLimitedCostException} (400).
 */
public class RateLimitedInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(RateLimitedInterceptor.class);

	private final RateLimitedPolicies policies;

	private final RateLimitEnforcer enforcer;

	private final RateLimitHeaders headers;

	private final CurrentRequest currentRequest;

	private final IpKeys ipKeys;

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final FirstWarning keyFailures = new FirstWarning(logger);

	/**
	 * Creates the interceptor.
	 * @param policies the policies of annotated methods
	 * @param enforcer the enforcer
	 * @param headers the header writer, for responses of admitted calls inside web requests
	 * @param currentRequest the web request a call is made in, if any
	 * @param ipKeys how a client is identified by its address, for calls whose key expression finds nothing
	 */
	public RateLimitedInterceptor(RateLimitedPolicies policies, RateLimitEnforcer enforcer, RateLimitHeaders headers,
			CurrentRequest currentRequest, IpKeys ipKeys) {
		this.policies = policies;
		this.enforcer = enforcer;
		this.headers = headers;
		this.currentRequest = currentRequest;
		this.ipKeys = ipKeys;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopProxyUtils.ultimateTargetClass(target)
				: invocation.getMethod().getDeclaringClass();
		List<AnnotatedPolicy> limits = this.policies.of(invocation.getMethod(), targetClass);
		if (!limits.isEmpty()) {
			RateLimitRequest request = this.currentRequest.request();
			for (AnnotatedPolicy limit : limits) {
				enforce(limit, invocation.getArguments(), request);
			}
		}
		return invocation.proceed();
	}

	private void enforce(AnnotatedPolicy limit, @Nullable Object[] args, @Nullable RateLimitRequest request) {
		PolicyDefinition policy = limit.policy();
		String key = key(limit, args, request);
		if (request != null && request.rateLimits().isCharged(policy, key)) {
			return;
		}
		long permits = (limit.cost() != null) ? cost(limit, limit.cost(), args, request) : policy.cost();
		RateLimitOutcome outcome = this.enforcer.enforce(policy, key, permits);
		if (outcome.refused()) {
			throw outcome.refusal((request != null) ? request.uri() : null);
		}
		if (request != null && request.rateLimits().show(outcome)) {
			BiConsumer<String, String> responseHeaders = this.currentRequest.responseHeaders();
			if (responseHeaders != null) {
				this.headers.write(outcome, responseHeaders);
			}
		}
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

	private long cost(AnnotatedPolicy limit, Expression expression, @Nullable Object[] args,
			@Nullable RateLimitRequest request) {
		Object value;
		try {
			value = expression.getValue(context(limit, args, request));
		}
		catch (RuntimeException ex) {
			throw invalidCost(limit, expression, "failed: " + ex.getMessage(), ex);
		}
		Long permits = permits(value);
		if (permits == null || permits < 1) {
			throw invalidCost(limit, expression, "came to " + value, null);
		}
		return permits;
	}

	/**
	 * A cost as whole permits: integers as they are, fractions rounded up, numbers beyond a long saturated (such a
	 * cost exceeds every capacity and is refused as never satisfiable).
	 */
	private static @Nullable Long permits(@Nullable Object value) {
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
			Principal principal = request.principal();
			context.setVariable("principal", principal);
		}
		return context;
	}

}
