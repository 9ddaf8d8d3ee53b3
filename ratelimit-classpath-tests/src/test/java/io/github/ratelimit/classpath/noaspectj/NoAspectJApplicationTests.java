package io.github.ratelimit.classpath.noaspectj;

import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.classpath.RunningApp;
import io.github.ratelimit.classpath.noaspectj.NoAspectJApplication.ReportService;
import io.github.ratelimit.spring.RateLimitExceededException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Runs in a JVM without AspectJ's weaver (see this module's pom): {@code @RateLimited} is enforced all the same,
 * on a method and on an interface method.
 */
class NoAspectJApplicationTests {

	@Test
	void classpathShouldLackTheAspectJWeaver() {
		Classpath.assertAbsent("org.aspectj.weaver.Advice", "org.aspectj.lang.annotation.Aspect");
		Classpath.assertPresent("org.springframework.aop.framework.autoproxy.InfrastructureAdvisorAutoProxyCreator");
	}

	@Test
	void annotatedMethodsShouldBeRefusedAfterTheirLimits() {
		try (RunningApp app = RunningApp.start(NoAspectJApplication.class, "spring.main.web-application-type=none",
				"ratelimit.backend=in-memory")) {
			ReportService service = app.context().getBean(ReportService.class);
			for (int i = 0; i < 3; i++) {
				assertThat(service.report()).isEqualTo("report");
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(service::report)
				.satisfies((ex) -> assertThat(ex.getPolicy()).isEqualTo("ReportService.report"));
			service.greet();
			service.greet();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(service::greet)
				.satisfies((ex) -> assertThat(ex.getPolicy()).isEqualTo("greetings"));
		}
	}

}
