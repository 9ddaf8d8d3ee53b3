package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.concurrent.ConcurrentHashMap;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.RequestKeyResolvers;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.Ordered;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Enforces {@link RateLimited} on methods of Spring beans (every public method, for an annotated class). Ordered early, so a refused call starts no
 * transaction and reaches no cache.
 */
@Aspect
public class RateLimitedAspect implements Ordered, BeanFactoryAware, SmartInitializingSingleton {

	private final RateLimitRegistry registry;

	private final RateLimitEnforcer enforcer;

	private final RateLimitHeaders headers;

	private final CurrentRequest currentRequest;

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Map<Target, List<Limited>> cache = new ConcurrentHashMap<>();

	private @Nullable ListableBeanFactory beanFactory;

	/**
	 * Creates the aspect.
	 * @param registry the policies
	 * @param enforcer the enforcer
	 * @param headers the header writer, for responses of admitted calls inside web requests
	 * @param currentRequest the web request a call is made in, if any
	 */
	public RateLimitedAspect(RateLimitRegistry registry, RateLimitEnforcer enforcer, RateLimitHeaders headers,
			CurrentRequest currentRequest) {
		this.registry = registry;
		this.enforcer = enforcer;
		this.headers = headers;
		this.currentRequest = currentRequest;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE + 1000;
	}

	/**
	 * Enforces every {@link RateLimited} of the called method and its class, then proceeds.
	 * @param call the call
	 * @return what the method returns
	 * @throws Throwable what the method throws, or a {@link RateLimitExceededException}
	 */
	@Around("(execution(public * *(..)) && (@within(io.github.ratelimit.spring.annotation.RateLimited) "
			+ "|| @within(io.github.ratelimit.spring.annotation.RateLimited.List))) "
			+ "|| @annotation(io.github.ratelimit.spring.annotation.RateLimited) "
			+ "|| @annotation(io.github.ratelimit.spring.annotation.RateLimited.List)")
	public @Nullable Object limit(ProceedingJoinPoint call) throws Throwable {
		Method method = ((MethodSignature) call.getSignature()).getMethod();
		Class<?> target = (call.getTarget() != null) ? AopUtils.getTargetClass(call.getTarget())
				: method.getDeclaringClass();
		Method specific = AopUtils.getMostSpecificMethod(method, target);
		List<Limited> limits = limitsOf(specific, target);
		RateLimitRequest request = limits.isEmpty() ? null : this.currentRequest.request();
		for (Limited limited : limits) {
			enforce(limited, specific, call.getArgs(), request);
		}
		return call.proceed();
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	/**
	 * Resolves the policy of every {@link RateLimited} on the application's beans at start-up, so that an invalid
	 * annotation (unparsable limits or expressions, an unknown algorithm, a name with neither configuration nor
	 * limits, one name declared with two sets of limits) stops start-up instead of failing calls.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		if (this.beanFactory == null) {
			return;
		}
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(name, false);
			if (type == null || !AnnotationUtils.isCandidateClass(type, RateLimited.class)) {
				continue;
			}
			Class<?> userClass = ClassUtils.getUserClass(type);
			boolean onClass = MergedAnnotations.from(userClass, SearchStrategy.TYPE_HIERARCHY)
				.isPresent(RateLimited.class);
			for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
				boolean onMethod = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY)
					.isPresent(RateLimited.class);
				if (onMethod || (onClass && Modifier.isPublic(method.getModifiers()))) {
					limitsOf(method, userClass);
				}
			}
		}
	}

	private void enforce(Limited limited, Method method, Object[] args, @Nullable RateLimitRequest request) {
		PolicyDefinition policy = limited.policy();
		String key = key(limited, policy, method, args, request);
		long permits = (limited.cost() != null) ? cost(limited.cost(), method, args, request) : policy.cost();
		RateLimitOutcome outcome = this.enforcer.enforce(policy, key, permits);
		if (outcome.refused()) {
			throw outcome.refusal((request != null) ? request.uri() : null);
		}
		if (request != null && !policy.shadow() && outcome.decided()) {
			BiConsumer<String, String> responseHeaders = this.currentRequest.responseHeaders();
			if (responseHeaders != null) {
				this.headers.write(policy, outcome.decision(), responseHeaders);
			}
		}
	}

	private String key(Limited limited, PolicyDefinition policy, Method method, Object[] args,
			@Nullable RateLimitRequest request) {
		Expression expression = limited.key();
		if (request != null && expression == null) {
			return policy.keyOf(request);
		}
		if (request != null) {
			String key = RequestKeyResolvers.orIp((current) -> {
				Object value = expression.getValue(context(method, args, current));
				return (value != null) ? value.toString() : null;
			}).resolve(request);
			return (key != null) ? key : request.remoteAddress();
		}
		Object value = (expression != null) ? expression.getValue(context(method, args, null)) : null;
		return (value != null && !value.toString().isEmpty()) ? value.toString() : RequestKeyResolvers.GLOBAL_KEY;
	}

	private long cost(Expression cost, Method method, Object[] args, @Nullable RateLimitRequest request) {
		Number value = cost.getValue(context(method, args, request), Number.class);
		if (value == null) {
			throw new IllegalArgumentException("@RateLimited cost '" + cost.getExpressionString() + "' on "
					+ method + " evaluated to null");
		}
		return value.longValue();
	}

	private MethodBasedEvaluationContext context(Method method, Object[] args, @Nullable RateLimitRequest request) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, args,
				this.parameterNames);
		if (request != null) {
			context.setVariable("request", request.nativeRequest());
			Principal principal = request.principal();
			context.setVariable("principal", principal);
		}
		return context;
	}

	private List<Limited> limitsOf(Method method, Class<?> target) {
		return this.cache.computeIfAbsent(new Target(method, target), (key) -> {
			try {
				return resolve(method, target);
			}
			catch (IllegalArgumentException | IllegalStateException | ParseException ex) {
				throw new IllegalStateException("Invalid @RateLimited on " + target.getName() + "." + method.getName()
						+ ": " + ex.getMessage(), ex);
			}
		});
	}

	private List<Limited> resolve(Method method, Class<?> target) {
		List<Limited> limits = new ArrayList<>();
		MergedAnnotations.from(target, SearchStrategy.TYPE_HIERARCHY).stream(RateLimited.class)
			.forEach((annotation) -> limits.add(limited(annotation, method, target)));
		MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).stream(RateLimited.class)
			.forEach((annotation) -> limits.add(limited(annotation, method, target)));
		return List.copyOf(limits);
	}

	private Limited limited(MergedAnnotation<RateLimited> annotation, Method method, Class<?> target) {
		String name = annotation.getString("name");
		String algorithm = annotation.getString("algorithm");
		String key = annotation.getString("key");
		String cost = annotation.getString("cost");
		PolicyDefinition policy = this.registry.declare(
				StringUtils.hasText(name) ? name : target.getSimpleName() + "." + method.getName(),
				Arrays.asList(annotation.getStringArray("limits")),
				StringUtils.hasText(algorithm) ? Algorithm.of(algorithm) : null);
		return new Limited(policy, StringUtils.hasText(key) ? this.parser.parseExpression(key) : null,
				StringUtils.hasText(cost) ? this.parser.parseExpression(cost) : null);
	}

	/**
	 * One {@link RateLimited} annotation of a method: its policy, and its expressions parsed once.
	 */
	private record Limited(PolicyDefinition policy, @Nullable Expression key, @Nullable Expression cost) {
	}

	/**
	 * A method as called on a bean class (a method inherited by two classes has two default policy names).
	 */
	private record Target(Method method, Class<?> type) {
	}

}
