package io.github.ratelimit.classpath.nojackson;

import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.classpath.Refusals;
import io.github.ratelimit.classpath.RunningApp;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in a JVM without Jackson 3 or Boot's Jackson support (see this module's pom): the filter and the annotations
 * still limit, and their refusals still carry the rate limit headers and the RFC 9457 problem body.
 */
class NoJacksonApplicationTests {

	@Test
	void classpathShouldLackJackson() {
		Classpath.assertAbsent("tools.jackson.databind.json.JsonMapper", "tools.jackson.core.JsonParser",
				"com.fasterxml.jackson.annotation.JsonProperty",
				"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration");
		Classpath.assertPresent("io.lettuce.core.RedisClient", "jakarta.servlet.http.HttpServletRequest",
				"org.springframework.web.servlet.DispatcherServlet");
	}

	@Test
	void filterAndAnnotationShouldRefuseWithTheProblemBody() {
		TestRedis redis = TestRedis.get();
		try (RunningApp app = RunningApp.start(NoJacksonApplication.class, "spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port(), "ratelimit.key-prefix=no-jackson-" + System.nanoTime(),
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.limits=3/1h")) {
			assertThat(app.statuses("/hello", 3)).containsExactly(200, 200, 200);
			Refusals.assertQuotaExceeded(app.get("/hello"), "hello", "/hello");
			assertThat(app.statuses("/report", 3)).containsExactly(200, 200, 200);
			Refusals.assertQuotaExceeded(app.get("/report"), "report", "/report");
		}
	}

}
