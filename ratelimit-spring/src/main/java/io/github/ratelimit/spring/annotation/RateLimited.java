package io.github.ratelimit.spring.annotation;

import io.github.ratelimit.spring.RateLimitedCostException;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Rate limits calls of a method, or of every public method of a class, by a policy. A call refused by the policy
 * throws {@link io.github.ratelimit.spring.RateLimitExceededException}, which Spring MVC and WebFlux render as 429.
 * <p>
 * A method returning a {@code Mono}, a {@code Flux} or another reactive type is decided on each subscription (one
 * subscription, one call), and a refusal is an error signal; one returning a {@code CompletableFuture} or
 * {@code CompletionStage} is decided without blocking the caller, and a refusal completes the returned future. Either
 * way the method runs only once admitted.
 * <pre class="code">
 * &#64;RateLimited("orders")                                  // policy from ratelimit.policies.orders
 * &#64;RateLimited(limits = {"10/1m", "500/1d"}, key = "#customerId")
 * &#64;RateLimited(name = "exports", limits = "5/1h", cost = "#rows / 1000 + 1")
 * </pre>
 * Repeatable: every annotation is enforced, in order, and the first refusal stops the call (permits already taken
 * by earlier annotations stay taken). Annotations on the class apply before those on the method.
 * <p>
 * Honoured wherever Spring's own annotation lookup finds it, as for {@code @Transactional}: on the method or a
 * method it overrides or implements (a superclass's, an interface's), and for a public method on its class or any
 * supertype. A policy named in several of these places is charged once per call. An annotation that can never be
 * enforced (on a private, static or final method, or a bean that is not proxied) stops start-up, naming the method.
 * As with every proxy-based annotation, a call from inside the bean itself is not limited.
 * <p>
 * {@link Reflective}, as {@code @Transactional} is: AOT processing registers the annotated methods of beans for
 * reflection, so a native image finds the annotations and the parameter names that key and cost expressions use.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

	/**
	 * The policy name; defaults to {@code SimpleClassName.method}.
	 * @return the policy name
	 */
	@AliasFor("name")
	String value() default "";

	/**
	 * The policy name; defaults to {@code SimpleClassName.method}.
	 * @return the policy name
	 */
	@AliasFor("value")
	String name() default "";

	/**
	 * The limits, such as {@code {"10/1m", "500/1d"}}, used when no {@code ratelimit.policies.<name>} is configured:
	 * configuration wins.
	 * @return the limits
	 */
	String[] limits() default {};

	/**
	 * A SpEL expression for the client key, over the method's arguments by name ({@code #customerId}, or
	 * {@code #p0}), with {@code #request} (the current {@code HttpServletRequest}, or on WebFlux the
	 * {@code ServerHttpRequest} a reactive method's subscriber serves, if any) and {@code #principal} (its user
	 * principal, if any). Defaults to the configured policy's key strategy inside a web request (the client
	 * IP unless configured otherwise), else one global key. An expression that yields nothing or fails counts the
	 * call under the client IP inside a web request, else under the global key, and is logged.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * The permits a call costs: a number or a SpEL expression over the arguments, as for {@link #key()}. Defaults to
	 * the configured policy's cost, else 1. Fractions are rounded up; an expression that comes to less than 1 or to
	 * no number refuses the call with {@link RateLimitedCostException} (400 inside Spring MVC), charging nothing.
	 * @return the cost expression
	 */
	String cost() default "";

	/**
	 * How long a refused call waits for its next permit before it is refused, such as {@code "2s"} or
	 * {@code "500ms"} (or ISO-8601, {@code "PT2S"}); defaults to the configured policy's {@code max-wait}, else no wait.
	 * {@code "0"} refuses at once whatever the policy says. On a token bucket or GCRA a call reserves its permits
	 * with one decision when they come due within this wait, and sleeps until they are due; on other algorithms a
	 * refused call sleeps until its next permit as the backend computed it (on Redis, Redis' own clock) and asks again,
	 * up to this long; calls of one key in this instance wait in line, in arrival order. A blocking method waits on its own thread (an interrupt ends the wait with a
	 * {@link java.util.concurrent.CancellationException}, the interrupt flag kept); a method returning a
	 * {@code Mono}, a {@code Flux} or a {@code CompletableFuture} waits without holding a thread. A call whose next
	 * permit would come later than the wait allows is refused at once, as is a cost above the capacity.
	 * @return the longest wait
	 */
	String maxWait() default "";

	/**
	 * The algorithm, such as {@code gcra}, for a policy that is not configured; defaults to {@code ratelimit.algorithm}.
	 * @return the algorithm name
	 */
	String algorithm() default "";

	/**
	 * Holds several {@link RateLimited} annotations on one element.
	 */
	@Target({ ElementType.METHOD, ElementType.TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@Reflective
	@interface List {

		/**
		 * The annotations.
		 * @return the annotations
		 */
		RateLimited[] value();

	}

}
