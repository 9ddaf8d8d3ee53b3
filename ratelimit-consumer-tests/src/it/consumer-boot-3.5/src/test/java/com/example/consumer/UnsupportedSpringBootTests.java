package com.example.consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * The application as a user starts it on Spring Boot 3.5, a line the starter is not made for: start-up fails in one
 * sentence naming the lines it needs, reported as Spring Boot reports a failure it can explain, and nothing else of the
 * starter's fails first (such as its Redis backend saying Spring Data Redis is missing).
 */
@ExtendWith(OutputCaptureExtension.class)
class UnsupportedSpringBootTests {

	@Test
	void runsOnTheSpringBootLineOfItsPom() {
		assertThat(SpringBootVersion.getVersion()).isEqualTo(System.getProperty("expected.spring-boot.version"));
	}

	@Test
	void startUpFailsInOneSentenceNamingTheSpringBootLinesTheStarterNeeds(CapturedOutput output) {
		String problem = "ratelimit-spring-boot " + System.getProperty("ratelimit.version")
				+ " needs Spring Boot 4.0 or 4.1, and this application runs Spring Boot " + SpringBootVersion.getVersion();
		String action = "upgrade the application to Spring Boot 4.0 or 4.1 (there is no release of ratelimit-spring-boot"
				+ " for Spring Boot 3 or earlier)";

		assertThatRuntimeException().isThrownBy(() -> SpringApplication.run(ConsumerApplication.class))
			.withMessage(problem + ": " + action + ".")
			.withNoCause();
		assertThat(output.getOut()).contains("APPLICATION FAILED TO START")
			.contains("Description:" + System.lineSeparator() + System.lineSeparator() + problem + ".")
			.contains("Action:" + System.lineSeparator() + System.lineSeparator() + "U" + action.substring(1) + ".")
			.doesNotContain("Spring Data Redis");
	}

}
