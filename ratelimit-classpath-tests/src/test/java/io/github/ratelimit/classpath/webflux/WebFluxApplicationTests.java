package io.github.ratelimit.classpath.webflux;

import java.util.stream.Stream;

import io.github.ratelimit.autoconfigure.InvalidRateLimitConfigurationException;
import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.classpath.RunningApp;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in a JVM without the Servlet API, Tomcat or Spring MVC, with WebFlux (see this module's pom): a reactive
 * application with the starter never starts limiting nothing. It fails at start-up with one sentence, or starts with
 * {@code ratelimit.enabled=false}.
 */
@ExtendWith(OutputCaptureExtension.class)
class WebFluxApplicationTests {

	@Test
	void classpathShouldHaveWebFluxAndNoServletStack() {
		Classpath.assertAbsent("jakarta.servlet.http.HttpServletRequest", "org.apache.catalina.startup.Tomcat",
				"org.apache.el.ExpressionFactoryImpl", "org.apache.tomcat.websocket.WsSession",
				"org.springframework.boot.tomcat.TomcatWebServer",
				"org.springframework.boot.servlet.autoconfigure.HttpEncodingAutoConfiguration",
				"org.springframework.web.servlet.DispatcherServlet",
				"org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration",
				"redis.clients.jedis.Jedis");
		Classpath.assertPresent("org.springframework.web.reactive.DispatcherHandler",
				"reactor.netty.http.server.HttpServer");
	}

	@Test
	void startUpShouldFailWithOneSentenceSayingWebFluxIsNotSupported(CapturedOutput output) {
		assertThat(RunningApp.startUpFailure(WebFluxApplication.class, properties()))
			.isInstanceOf(InvalidRateLimitConfigurationException.class)
			.hasMessage("Invalid rate limit configuration 'ratelimit.enabled': this version of the rate limiter "
					+ "supports servlet (Spring MVC) applications only, and this is a reactive (WebFlux) "
					+ "application, whose requests it would not limit");
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains(String.format("Description:%n%nInvalid rate limit configuration 'ratelimit.enabled': this "
					+ "version of the rate limiter supports servlet (Spring MVC) applications only"))
			.contains("Update 'ratelimit.enabled': set ratelimit.enabled=false, or run the application on Spring MVC");
	}

	@Test
	void startUpWithRateLimitingDisabledShouldServeRequests() {
		try (RunningApp app = RunningApp.start(WebFluxApplication.class, properties("ratelimit.enabled=false"))) {
			assertThat(app.context()).isInstanceOf(ReactiveWebApplicationContext.class);
			assertThat(app.context().getBeansOfType(RateLimitRegistry.class)).isEmpty();
			assertThat(app.statuses("/hello", 4)).containsExactly(200, 200, 200, 200);
			assertThat(app.statuses("/report", 4)).containsExactly(200, 200, 200, 200);
		}
	}

	private static String[] properties(String... more) {
		TestRedis redis = TestRedis.get();
		return Stream.concat(Stream.of("spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port(), "ratelimit.policies.hello.paths=/hello",
				"ratelimit.policies.hello.limits=3/1h"), Stream.of(more))
			.toArray(String[]::new);
	}

}
