package io.github.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that an application started with invalid configuration reports the failure analysis users read.
 */
@ExtendWith(OutputCaptureExtension.class)
class InvalidConfigurationStartupTests {

	@Test
	void startUpWithAnInvalidLimitShouldReportThePropertyAndTheFix(CapturedOutput output) {
		SpringApplicationBuilder application = new SpringApplicationBuilder(InvalidConfigurationApplication.class)
			.web(WebApplicationType.NONE)
			.properties("ratelimit.backend=in-memory", "ratelimit.policies.hello.limits=lots");
		assertThatExceptionOfType(Exception.class).isThrownBy(application::run);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid rate limit configuration 'ratelimit.policies.hello.limits[0]'")
			.contains("Update 'ratelimit.policies.hello.limits[0]': write limits as \"<capacity>/<period>\"");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RateLimitAutoConfiguration.class)
	static class InvalidConfigurationApplication {

	}

}
