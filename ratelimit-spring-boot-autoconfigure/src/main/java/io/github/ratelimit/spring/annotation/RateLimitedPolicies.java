package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyUse;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodClassKey;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The policies a method called on a bean class applies: each {@link RateLimitedAnnotations declaration} bound to its
 * policy in the registry, its expressions parsed. Bound once per method and class, at start-up for every bean and
 * again on first call for what start-up did not see, by the same code.
 */
public class RateLimitedPolicies {

	private final RateLimitedAnnotations annotations;

	private final RateLimitRegistry registry;

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final Map<MethodClassKey, List<AnnotatedPolicy>> cache = new ConcurrentHashMap<>();

	/**
	 * Creates the policies of annotated methods.
	 * @param annotations where annotations are found
	 * @param registry the policies
	 */
	public RateLimitedPolicies(RateLimitedAnnotations annotations, RateLimitRegistry registry) {
		this.annotations = annotations;
		this.registry = registry;
	}

	/**
	 * The policies a method applies when called on a class.
	 * @param method the method
	 * @param targetClass the bean class
	 * @return the policies, in the order they are enforced; empty when the method is not rate limited
	 * @throws InvalidRateLimitedException when an annotation is invalid
	 */
	List<AnnotatedPolicy> of(Method method, Class<?> targetClass) {
		return this.cache.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> this.annotations.find(method, targetClass).stream().map(this::bind).toList());
	}

	private AnnotatedPolicy bind(RateLimitedDeclaration declaration) {
		PolicyDefinition policy;
		try {
			policy = this.registry.declare(declaration.policy(), declaration.limits(),
					declaration.algorithm().isBlank() ? null : Algorithm.of(declaration.algorithm()));
		}
		catch (IllegalArgumentException | IllegalStateException ex) {
			throw new InvalidRateLimitedException(declaration.methodName(), ex.getMessage(),
					"configure ratelimit.policies." + declaration.policy() + ", or give the annotation valid limits "
							+ "(such as \"10/1m\") and, if any, a known algorithm",
					ex);
		}
		AnnotatedPolicy bound = new AnnotatedPolicy(policy, expression(declaration, "key", declaration.key()),
				expression(declaration, "cost", declaration.cost()), declaration);
		checkConstantCost(bound);
		this.registry.recordUse(policy.name(), new PolicyUse(declaration.methodName(),
				declaration.key().isBlank() ? policy.keyStrategy() : declaration.key(),
				declaration.cost().isBlank() ? Long.toString(policy.cost()) : declaration.cost()));
		return bound;
	}

	private @Nullable Expression expression(RateLimitedDeclaration declaration, String attribute, String source) {
		if (source.isBlank()) {
			return null;
		}
		try {
			return this.parser.parseExpression(source);
		}
		catch (ParseException ex) {
			throw new InvalidRateLimitedException(declaration.methodName(),
					"the " + attribute + " '" + source + "' is not a valid SpEL expression: " + ex.getMessage(),
					"write the " + attribute + " as SpEL over the method's arguments, such as #customerId", ex);
		}
	}

	/** A cost written as a number is checked now, as a configured cost is, rather than on every call. */
	private static void checkConstantCost(AnnotatedPolicy bound) {
		String cost = bound.declaration().cost().trim();
		if (!cost.matches("-?\\d+")) {
			return;
		}
		long permits;
		try {
			permits = Long.parseLong(cost);
		}
		catch (NumberFormatException ex) {
			permits = cost.startsWith("-") ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
		long capacity = bound.policy().policy().smallestCapacity();
		if (permits < 1 || permits > capacity) {
			throw new InvalidRateLimitedException(bound.declaration().methodName(),
					"the cost " + cost + " is outside 1.." + capacity + " (the policy's smallest capacity), so every "
							+ "call would be " + ((permits < 1) ? "invalid" : "refused"),
					"give a cost of at least 1 and at most the capacity", null);
		}
	}

	/**
	 * One annotation bound to its policy.
	 *
	 * @param policy the policy
	 * @param key the parsed key expression, {@code null} for the default
	 * @param cost the parsed cost expression, {@code null} for the policy's cost
	 * @param declaration the annotation as written
	 */
	record AnnotatedPolicy(PolicyDefinition policy, @Nullable Expression key, @Nullable Expression cost,
			RateLimitedDeclaration declaration) {
	}

}
