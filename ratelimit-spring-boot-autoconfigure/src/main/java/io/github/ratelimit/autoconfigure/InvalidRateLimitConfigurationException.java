package io.github.ratelimit.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at start-up when a {@code ratelimit.*} property is invalid; its failure analysis names the property and
 * the fix.
 */
public class InvalidRateLimitConfigurationException extends RuntimeException {

	/** The full name of the invalid property. */
	private final String property;

	/** How to fix the configuration. */
	private final String action;

	/**
	 * Creates the exception.
	 * @param property the full name of the invalid property, such as {@code ratelimit.policies.hello.limits[0]}
	 * @param problem what is wrong
	 * @param action how to fix it
	 * @param cause the underlying error, if any
	 */
	public InvalidRateLimitConfigurationException(String property, String problem, String action,
			@Nullable Throwable cause) {
		super("Invalid rate limit configuration '" + property + "': " + problem, cause);
		this.property = property;
		this.action = action;
	}

	/**
	 * The full name of the invalid property.
	 * @return the property name
	 */
	public String getProperty() {
		return this.property;
	}

	/**
	 * How to fix the configuration.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
