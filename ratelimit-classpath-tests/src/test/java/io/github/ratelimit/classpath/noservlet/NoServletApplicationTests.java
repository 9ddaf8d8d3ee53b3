package io.github.ratelimit.classpath.noservlet;

import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.classpath.RunningApp;
import io.github.ratelimit.classpath.noservlet.NoServletApplication.ReportService;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Runs in a JVM without the Servlet API, Tomcat, Spring MVC or WebFlux (see this module's pom): {@code @RateLimited}
 * alone limits a non-web application on Redis.
 */
class NoServletApplicationTests {

	@Test
	void classpathShouldLackEveryWebStack() {
		Classpath.assertServletStackAbsent();
		Classpath.assertAbsent("org.springframework.web.reactive.DispatcherHandler",
				"org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration",
				"org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory",
				"reactor.netty.http.server.HttpServer", "reactor.netty.DisposableServer", "redis.clients.jedis.Jedis");
		Classpath.assertPresent("io.lettuce.core.RedisClient", "org.aspectj.weaver.Advice");
	}

	@Test
	void annotatedMethodShouldBeRefusedAfterItsLimit() {
		TestRedis redis = TestRedis.get();
		try (RunningApp app = RunningApp.start(NoServletApplication.class, "spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port())) {
			assertThat(app.context().getEnvironment().containsProperty("local.server.port")).isFalse();
			ReportService service = app.context().getBean(ReportService.class);
			for (int i = 0; i < 3; i++) {
				assertThat(service.report()).isEqualTo("report");
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(service::report)
				.satisfies((ex) -> assertThat(ex.getPolicy()).isEqualTo("ReportService.report"));
			assertThat(app.context().getBean(StringRedisTemplate.class).keys("ratelimit:ReportService.report:*"))
				.isNotEmpty();
		}
	}

}
