package io.github.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link InvalidRateLimitConfigurationFailureAnalyzer}.
 */
class InvalidRateLimitConfigurationFailureAnalyzerTests {

	private final FailureAnalyzer analyzer = new InvalidRateLimitConfigurationFailureAnalyzer();

	@Test
	void analysisShouldNameThePropertyTheProblemAndTheFix() {
		InvalidRateLimitConfigurationException invalid = new InvalidRateLimitConfigurationException(
				"ratelimit.policies.hello.limits", "the policy has no limits", "give at least one limit", null);
		FailureAnalysis analysis = this.analyzer
			.analyze(new BeanCreationException("rateLimitRegistry", "Failed to instantiate", invalid));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains("ratelimit.policies.hello.limits")
			.contains("the policy has no limits");
		assertThat(analysis.getAction()).isEqualTo("Update 'ratelimit.policies.hello.limits': give at least one limit");
		assertThat(analysis.getCause()).isSameAs(invalid);
	}

	@Test
	void otherFailuresShouldNotBeAnalyzed() {
		assertThat(this.analyzer.analyze(new IllegalStateException("unrelated"))).isNull();
	}

}
