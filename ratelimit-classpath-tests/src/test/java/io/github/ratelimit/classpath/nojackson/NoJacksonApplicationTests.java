package io.github.ratelimit.classpath.nojackson;

import java.net.http.HttpResponse;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import io.github.ratelimit.classpath.Classpath;
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
			assertRefusal(app.get("/hello"), "hello", "/hello");
			assertThat(app.statuses("/report", 3)).containsExactly(200, 200, 200);
			assertRefusal(app.get("/report"), "report", "/report");
		}
	}

	private static void assertRefusal(HttpResponse<String> refused, String policy, String path) {
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		// a token bucket of 3/1h gains a permit every 1200 s, counted from the first request (on a slow machine,
		// seconds before this one)
		assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
				(seconds) -> assertThat(Long.parseLong(seconds)).isBetween(1080L, 1200L));
		assertThat(refused.headers().firstValue("RateLimit")).hasValueSatisfying(
				(value) -> assertThat(value).matches("\"" + policy + "\";r=0;t=(10[89][0-9]|11[0-9][0-9]|1200)"));
		assertThat(refused.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
		String body = refused.body();
		assertThat((String) JsonPath.read(body, "$.type"))
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
		assertThat((Integer) JsonPath.read(body, "$.status")).isEqualTo(429);
		assertThat((String) JsonPath.read(body, "$.instance")).isEqualTo(path);
		assertThat((String) JsonPath.read(body, "$.policy")).isEqualTo(policy);
		assertThat((List<String>) JsonPath.read(body, "$.violated-policies")).containsExactly(policy);
	}

}
