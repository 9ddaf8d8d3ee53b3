package io.github.ratelimit.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link InvalidRateLimitConfigurationException} at start-up: which property, what is wrong, how to fix it.
 */
class InvalidRateLimitConfigurationFailureAnalyzer
		extends AbstractFailureAnalyzer<InvalidRateLimitConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitConfigurationException cause) {
		return new FailureAnalysis(cause.getMessage(), "Update '" + cause.getProperty() + "': " + cause.getAction(),
				cause);
	}

}
