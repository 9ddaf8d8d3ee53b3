package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.annotation.InvalidRateLimitedException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link InvalidRateLimitedException} at start-up: which method, what is wrong, how to fix it.
 */
class InvalidRateLimitedFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRateLimitedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitedException cause) {
		return new FailureAnalysis(cause.getMessage(), "Update @RateLimited on " + cause.getMethod() + ": "
				+ cause.getAction(), cause);
	}

}
