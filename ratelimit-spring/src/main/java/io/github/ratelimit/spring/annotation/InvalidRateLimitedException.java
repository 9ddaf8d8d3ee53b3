package io.github.ratelimit.spring.annotation;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at start-up for a {@link RateLimited} annotation that is invalid or can never be enforced; its failure
 * analysis names the method and the fix.
 */
public class InvalidRateLimitedException extends RuntimeException {

	/** The annotated method. */
	private final String method;

	/** How to fix the annotation. */
	private final String action;

	/**
	 * Creates the exception.
	 * @param method the annotated method, such as {@code com.example.Orders.list}
	 * @param problem what is wrong
	 * @param action how to fix it
	 * @param cause the underlying error, if any
	 */
	public InvalidRateLimitedException(String method, String problem, String action, @Nullable Throwable cause) {
		super("Invalid @RateLimited on " + method + ": " + problem, cause);
		this.method = method;
		this.action = action;
	}

	/**
	 * The annotated method.
	 * @return the class and method name
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * How to fix the annotation.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
