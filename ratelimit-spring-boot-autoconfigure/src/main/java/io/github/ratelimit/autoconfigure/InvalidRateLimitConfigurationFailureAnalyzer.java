package io.github.ratelimit.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Explains an {@link InvalidRateLimitConfigurationException} at start-up: which property, what is wrong, how to fix it.
 * Ordered first, so that the analyzers of its causes (Spring MVC's for a path pattern, Boot's for a missing bean)
 * do not answer with advice about other properties.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class InvalidRateLimitConfigurationFailureAnalyzer
		extends AbstractFailureAnalyzer<InvalidRateLimitConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitConfigurationException cause) {
		return new FailureAnalysis(cause.getMessage(), "Update '" + cause.getProperty() + "': " + cause.getAction(),
				cause);
	}

}
