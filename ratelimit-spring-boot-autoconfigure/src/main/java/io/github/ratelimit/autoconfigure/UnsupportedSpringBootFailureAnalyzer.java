package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.autoconfigure.SpringBootVersionCheck.UnsupportedSpringBootException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.util.StringUtils;

/**
 * Explains an {@link UnsupportedSpringBootException} at start-up: the Spring Boot lines the starter needs, the one
 * the application runs, and the upgrade. Spring Boot 3 reports it the same way.
 */
class UnsupportedSpringBootFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedSpringBootException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedSpringBootException cause) {
		return new FailureAnalysis(cause.problem() + ".", StringUtils.capitalize(cause.action()) + ".", cause);
	}

}
