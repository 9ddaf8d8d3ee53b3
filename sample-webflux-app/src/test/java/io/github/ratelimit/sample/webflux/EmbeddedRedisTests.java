package io.github.ratelimit.sample.webflux;

import java.util.UUID;

import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux sample as a user runs it on a machine without Redis: {@code sample.embedded-redis=auto} (the default)
 * brings a Redis server process on the configured local port, the sample limits {@code /api/hello} with it, and
 * takes it away again on shutdown; {@code never} does not.
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedRedisTests {

	private static final String KEY_PREFIX = "embedded-redis-webflux-tests-" + UUID.randomUUID();

	@Test
	void autoStartsAnEmbeddedRedisWhereNothingListensAndLimitsHello(CapturedOutput output) {
		int port = TestRedis.freePort();
		try (RunningSample sample = RunningSample.start("sample.embedded-redis=auto", "spring.data.redis.host=localhost",
				"spring.data.redis.port=" + port, "ratelimit.key-prefix=" + KEY_PREFIX,
				"ratelimit.policies.hello.limits=5/1h")) {
			assertThat(TestRedis.listening(port)).isTrue();
			assertThat(output).contains("Started an embedded Redis server on 127.0.0.1:" + port);
			for (int i = 0; i < 5; i++) {
				assertThat(sample.get("/api/hello")).isEqualTo(HttpStatus.OK);
			}
			assertThat(sample.get("/api/hello")).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		}
		assertThat(TestRedis.listening(port)).isFalse();
	}

	@Test
	void neverStartsNoRedis(CapturedOutput output) {
		int port = TestRedis.freePort();
		try (RunningSample sample = RunningSample.start("sample.embedded-redis=never",
				"spring.data.redis.host=localhost", "spring.data.redis.port=" + port,
				"ratelimit.key-prefix=" + KEY_PREFIX)) {
			assertThat(TestRedis.listening(port)).isFalse();
			assertThat(output).doesNotContain("Started an embedded Redis server");
		}
	}

}
