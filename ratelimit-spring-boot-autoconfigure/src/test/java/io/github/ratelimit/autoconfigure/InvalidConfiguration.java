package io.github.ratelimit.autoconfigure;

import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Finds the {@link InvalidRateLimitConfigurationException} that stopped a context from starting.
 */
final class InvalidConfiguration {

	private InvalidConfiguration() {
	}

	/**
	 * The exception that stopped a context, asserting that the context failed because of one.
	 * @param context the context
	 * @return the exception
	 */
	static InvalidRateLimitConfigurationException of(ApplicationContextAssertProvider<?> context) {
		assertThat(context).hasFailed();
		return in(context.getStartupFailure());
	}

	/**
	 * The exception in the cause chain of a failure.
	 * @param failure the failure
	 * @return the exception
	 */
	static InvalidRateLimitConfigurationException in(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidRateLimitConfigurationException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("No InvalidRateLimitConfigurationException caused " + failure, failure);
	}

}
