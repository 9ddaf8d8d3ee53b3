package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.autoconfigure.SpringBootVersionCheck.UnsupportedSpringBootException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.support.GenericApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link SpringBootVersionCheck} and {@link UnsupportedSpringBootFailureAnalyzer}; the consumer-boot-3.5
 * project of ratelimit-consumer-tests starts an application on Spring Boot 3.5 to see it fail so.
 */
class SpringBootVersionCheckTests {

	@ParameterizedTest
	@ValueSource(strings = { "3.5.7", "3.0.0", "2.7.18" })
	void springBootOlderThan4ShouldFailStartUpInOneSentence(String bootVersion) {
		assertThat(SpringBootVersionCheck.unsupported("0.1.0-SNAPSHOT", bootVersion, false))
			.hasMessage("ratelimit-spring-boot 0.1.0-SNAPSHOT needs Spring Boot 4.0 or 4.1, and this application runs "
					+ "Spring Boot " + bootVersion + ": upgrade the application to Spring Boot 4.0 or 4.1 (there is no "
					+ "release of ratelimit-spring-boot for Spring Boot 3 or earlier).");
	}

	@ParameterizedTest
	@ValueSource(strings = { "4.0.7", "4.1.2", "4.2.0", "5.0.0", "4.1.0-SNAPSHOT", "10.0.0" })
	void springBoot4OrLaterShouldPass(String bootVersion) {
		assertThat(SpringBootVersionCheck.unsupported("0.1.0-SNAPSHOT", bootVersion, false)).isNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "unknown" })
	void anUnknownSpringBootVersionShouldBeToldByASpringBoot4Class(String bootVersion) {
		assertThat(SpringBootVersionCheck.unsupported("0.1.0-SNAPSHOT", bootVersion, true)).isNull();
		assertThat(SpringBootVersionCheck.unsupported("0.1.0-SNAPSHOT", bootVersion, false))
			.hasMessageStartingWith("ratelimit-spring-boot 0.1.0-SNAPSHOT needs Spring Boot 4.0 or 4.1, and this "
					+ "application runs a Spring Boot older than 4.0: upgrade");
		assertThat(SpringBootVersionCheck.unsupported("0.1.0-SNAPSHOT", null, true)).isNull();
		assertThat(SpringBootVersionCheck.unsupported("0.1.0-SNAPSHOT", null, false)).isNotNull();
	}

	@Test
	void anUnknownStarterVersionShouldBeLeftOut() {
		assertThat(SpringBootVersionCheck.unsupported(null, "3.5.7", false))
			.hasMessageStartingWith("ratelimit-spring-boot needs Spring Boot 4.0 or 4.1, and this application runs "
					+ "Spring Boot 3.5.7: ");
	}

	@Test
	void everySpringApplicationShouldRunTheCheckAndThisBuildsSpringBootShouldPassIt() {
		assertThat(SpringBootVersion.getVersion()).startsWith("4.");
		SpringBootVersionCheck check = new SpringApplication().getInitializers()
			.stream()
			.filter(SpringBootVersionCheck.class::isInstance)
			.map(SpringBootVersionCheck.class::cast)
			.findFirst()
			.orElseThrow();
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			assertThatNoException().isThrownBy(() -> check.initialize(context));
		}
	}

	@Test
	void analysisShouldSayTheProblemAndTheUpgrade() {
		UnsupportedSpringBootException unsupported = SpringBootVersionCheck.unsupported("0.1.0-SNAPSHOT", "3.5.7",
				false);
		assertThat(unsupported).isNotNull();
		FailureAnalysis analysis = new UnsupportedSpringBootFailureAnalyzer()
			.analyze(new IllegalStateException("Failed to initialize", unsupported));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).isEqualTo(
				"ratelimit-spring-boot 0.1.0-SNAPSHOT needs Spring Boot 4.0 or 4.1, and this application runs Spring "
						+ "Boot 3.5.7.");
		assertThat(analysis.getAction()).isEqualTo("Upgrade the application to Spring Boot 4.0 or 4.1 (there is no "
				+ "release of ratelimit-spring-boot for Spring Boot 3 or earlier).");
		assertThat(analysis.getCause()).isSameAs(unsupported);
	}

}
