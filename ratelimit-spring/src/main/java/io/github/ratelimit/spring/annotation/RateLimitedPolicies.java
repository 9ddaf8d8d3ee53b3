package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.time.DateTimeException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyUse;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RequestKeyResolvers;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodClassKey;
import org.springframework.expression.Expression;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The policies a method called on a bean class applies: each {@link RateLimitedAnnotations declaration} bound to its
 * policy in the registry, its expressions parsed. Bound once per method and class, at start-up for every bean and
 * again on first call for what start-up did not see, by the same code; bound again after the registry's configured
 * policies are {@linkplain RateLimitRegistry#reconfigure replaced}, so a call applies the new ones.
 */
public class RateLimitedPolicies {

	private final RateLimitedAnnotations annotations;

	private final RateLimitRegistry registry;

	private final boolean webRequests;

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private volatile Bindings bindings;

	/** Every declaration bound so far, to bind again after a refresh and to check a new configuration against. */
	private final Set<RateLimitedDeclaration> declarations = ConcurrentHashMap.newKeySet();

	/**
	 * Creates the policies of annotated methods.
	 * @param annotations where annotations are found
	 * @param registry the policies
	 * @param webRequests whether calls can be made inside web requests (the application has a web stack), where an
	 * annotation without a key counts them by its policy's key strategy rather than under the global key
	 */
	RateLimitedPolicies(RateLimitedAnnotations annotations, RateLimitRegistry registry, boolean webRequests) {
		this.annotations = annotations;
		this.registry = registry;
		this.webRequests = webRequests;
		this.bindings = new Bindings(registry.configuration());
	}

	/** Where annotations are found. */
	RateLimitedAnnotations annotations() {
		return this.annotations;
	}

	/**
	 * The policies a method applies when called on a class.
	 * @param method the method
	 * @param targetClass the bean class
	 * @return the policies, in the order they are enforced; empty when the method is not rate limited
	 * @throws InvalidRateLimitedException when an annotation is invalid
	 */
	List<AnnotatedPolicy> of(Method method, Class<?> targetClass) {
		Bindings current = this.bindings;
		Object configuration = this.registry.configuration();
		if (current.configuration() != configuration) {
			current = new Bindings(configuration);
			this.bindings = current;
		}
		return current.byMethod().computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> this.annotations.find(method, targetClass).stream().map(this::bind).toList());
	}

	/**
	 * Binds every declaration seen so far to the registry's policies now, as after a configuration refresh, so that
	 * the registry lists their uses again.
	 */
	public void bindAgain() {
		this.declarations.forEach((declaration) -> of(declaration.method(), declaration.targetClass()));
	}

	/**
	 * Checks that every declaration seen so far binds to the policies of another registry, as start-up would check
	 * it: an annotation without limits whose policy is no longer configured, two annotations of one name with other
	 * limits once configuration no longer decides it, a constant cost above a new capacity.
	 * @param candidate the registry of a new configuration ({@link RateLimitRegistry#withConfigured})
	 * @throws InvalidRateLimitedException naming the first method that would not bind
	 */
	public void check(RateLimitRegistry candidate) {
		RateLimitedPolicies checked = new RateLimitedPolicies(this.annotations, candidate, this.webRequests);
		this.declarations.forEach(checked::bind);
	}

	/**
	 * The names of the policies the declarations seen so far apply.
	 * @return the names
	 */
	public Set<String> policyNames() {
		return this.declarations.stream().map(RateLimitedDeclaration::policy).collect(Collectors.toSet());
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
				expression(declaration, "cost", declaration.cost()), maxWait(declaration, policy), declaration);
		checkConstantCost(bound);
		this.declarations.add(declaration);
		this.registry.recordUse(policy.name(), new PolicyUse(declaration.methodName(),
				declaration.key().isBlank() ? defaultKey(policy) : declaration.key(),
				declaration.cost().isBlank() ? Long.toString(policy.defaultPlan().cost()) : declaration.cost()));
		return bound;
	}

	/**
	 * The key of calls of an annotation without one: the policy's key strategy inside a web request, the global key
	 * outside one, so always the global key in an application without a web stack (a worker).
	 */
	private String defaultKey(PolicyDefinition policy) {
		return this.webRequests ? policy.keyStrategy() : RequestKeyResolvers.GLOBAL_KEY;
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

	/**
	 * The longest a call waits: the annotation's {@code maxWait}, else the policy's.
	 */
	private static Duration maxWait(RateLimitedDeclaration declaration, PolicyDefinition policy) {
		String text = declaration.maxWait().trim();
		if (text.isEmpty()) {
			return policy.maxWait();
		}
		Duration wait;
		try {
			wait = text.equals("0") ? Duration.ZERO : DurationFormatterUtils.detectAndParse(text);
		}
		catch (IllegalArgumentException | DateTimeException | ArithmeticException ex) {
			throw new InvalidRateLimitedException(declaration.methodName(),
					"the maxWait '" + text + "' is not a duration: " + ex.getMessage(),
					"write the maxWait as a duration such as \"2s\", \"500ms\" or \"PT2S\"", ex);
		}
		if (wait.isNegative()) {
			throw new InvalidRateLimitedException(declaration.methodName(), "the maxWait '" + text + "' is negative",
					"give a maxWait of 0 (refuse at once) or more", null);
		}
		if (!wait.isZero() && policy.shadow()) {
			throw new InvalidRateLimitedException(declaration.methodName(),
					"the maxWait '" + text + "' would never apply: policy '" + policy.name()
							+ "' is a shadow policy, which never refuses",
					"remove the maxWait, or make the policy enforce (ratelimit.policies." + policy.name()
							+ ".shadow=false)", null);
		}
		return wait;
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
		long capacity = bound.policy().defaultPlan().policy().smallestCapacity();
		if (permits < 1 || permits > capacity) {
			throw new InvalidRateLimitedException(bound.declaration().methodName(),
					"the cost " + cost + " is outside 1.." + capacity + " (the policy's smallest capacity), so every "
							+ "call would be " + ((permits < 1) ? "invalid" : "refused"),
					"give a cost of at least 1 and at most the capacity", null);
		}
	}

	/**
	 * The bindings made against one set of configured policies.
	 */
	private record Bindings(Object configuration, Map<MethodClassKey, List<AnnotatedPolicy>> byMethod) {

		Bindings(Object configuration) {
			this(configuration, new ConcurrentHashMap<>());
		}

	}

	/**
	 * One annotation bound to its policy.
	 *
	 * @param policy the policy
	 * @param key the parsed key expression, {@code null} for the default
	 * @param cost the parsed cost expression, {@code null} for the policy's cost
	 * @param maxWait the longest a refused call waits for its next permit (the annotation's, else the policy's)
	 * @param declaration the annotation as written
	 */
	record AnnotatedPolicy(PolicyDefinition policy, @Nullable Expression key, @Nullable Expression cost,
			Duration maxWait, RateLimitedDeclaration declaration) {
	}

}
