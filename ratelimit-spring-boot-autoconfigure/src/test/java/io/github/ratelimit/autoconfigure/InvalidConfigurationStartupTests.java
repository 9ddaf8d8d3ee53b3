package io.github.ratelimit.autoconfigure;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.io.DefaultResourceLoader;

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

	@Test
	void startUpWithABadPathPatternShouldReportOurPropertyNotSpringMvcs(CapturedOutput output) {
		SpringApplicationBuilder application = applicationLoadedAfterSpringBoot()
			.web(WebApplicationType.NONE)
			.properties("ratelimit.backend=in-memory", "ratelimit.policies.hello.limits=5/1s",
					"ratelimit.policies.hello.paths=/api/{id");
		assertThatExceptionOfType(Exception.class).isThrownBy(application::run);
		assertThat(output).contains("Invalid rate limit configuration 'ratelimit.policies.hello.paths[0]'")
			.contains("Update 'ratelimit.policies.hello.paths[0]': use Spring PathPattern syntax")
			.doesNotContain("spring.mvc.pathmatch");
	}

	@Test
	void startUpWithAMissingKeyResolverBeanShouldReportOurProperty(CapturedOutput output) {
		SpringApplicationBuilder application = applicationLoadedAfterSpringBoot()
			.web(WebApplicationType.NONE)
			.properties("ratelimit.backend=in-memory", "ratelimit.policies.hello.limits=5/1s",
					"ratelimit.policies.hello.key=bean:tenantKeys");
		assertThatExceptionOfType(Exception.class).isThrownBy(application::run);
		assertThat(output).contains("Invalid rate limit configuration 'ratelimit.policies.hello.key'")
			.contains("names no KeyResolver bean 'tenantKeys'")
			.contains("Update 'ratelimit.policies.hello.key'")
			.doesNotContain("required a bean named");
	}

	@Test
	void startUpWithAnUnknownKeyUnderAPolicyShouldReportThePolicyAndTheKey(CapturedOutput output) {
		SpringApplicationBuilder application = new SpringApplicationBuilder(InvalidConfigurationApplication.class)
			.web(WebApplicationType.NONE)
			.properties("ratelimit.backend=in-memory", "ratelimit.policies.hello.limits=5/1s",
					"ratelimit.policies.hello.path=/api/hello");
		assertThatExceptionOfType(Exception.class).isThrownBy(application::run);
		assertThat(output).contains("APPLICATION FAILED TO START").contains("ratelimit.policies.hello.path");
	}

	@Test
	void startUpWithAHashKeysThatIsNoBooleanShouldReportTheProperty(CapturedOutput output) {
		SpringApplicationBuilder application = new SpringApplicationBuilder(InvalidConfigurationApplication.class)
			.web(WebApplicationType.NONE)
			.properties("ratelimit.backend=in-memory", "ratelimit.policies.hello.limits=5/1s",
					"ratelimit.policies.hello.key=header:X-Api-Key", "ratelimit.policies.hello.hash-keys=sometimes");
		assertThatExceptionOfType(Exception.class).isThrownBy(application::run);
		assertThat(output).contains("APPLICATION FAILED TO START").contains("ratelimit.policies.hello.hash-keys")
			.contains("sometimes");
	}

	/**
	 * The application, its failure analyzers loaded with this module's {@code spring.factories} after Spring
	 * Boot's, as in an application whose classpath lists the starter after Spring Boot's jars: the analyzers of the
	 * causes (Spring Boot's for a path pattern or a missing bean) come first then.
	 */
	private static SpringApplicationBuilder applicationLoadedAfterSpringBoot() {
		ClassLoader classLoader = new ClassLoader(InvalidConfigurationStartupTests.class.getClassLoader()) {

			@Override
			public Enumeration<URL> getResources(String name) throws IOException {
				List<URL> resources = Collections.list(super.getResources(name));
				Collections.reverse(resources);
				return Collections.enumeration(resources);
			}

		};
		return new SpringApplicationBuilder(InvalidConfigurationApplication.class)
			.resourceLoader(new DefaultResourceLoader(classLoader));
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RateLimitAutoConfiguration.class)
	static class InvalidConfigurationApplication {

	}

}
