package io.github.ratelimit.sample;

import java.util.UUID;

import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The embedded default: {@code sample.embedded-redis=auto} brings a Redis server process when nothing listens on the
 * configured local port, and takes it away again; {@code never} does not.
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedRedisListenerTests {

	private static final String KEY_PREFIX = "embedded-redis-listener-tests-" + UUID.randomUUID();

	@Test
	void autoStartsAnEmbeddedRedisOnAFreeLocalPortAndStopsItWhenTheContextCloses(CapturedOutput output) {
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
	void autoStopsTheEmbeddedRedisWhenStartUpFails(CapturedOutput output) {
		int port = TestRedis.freePort();
		assertThatException().isThrownBy(() -> RunningSample.start("sample.embedded-redis=auto",
				"spring.data.redis.host=localhost", "spring.data.redis.port=" + port,
				"ratelimit.policies.hello.limits=lots"));
		assertThat(output).contains("Started an embedded Redis server on 127.0.0.1:" + port);
		assertThat(TestRedis.listening(port)).isFalse();
	}

	@Test
	void autoUsesARedisThatIsAlreadyListening(CapturedOutput output) {
		try (RunningSample sample = RunningSample.start("sample.embedded-redis=auto",
				"ratelimit.key-prefix=" + KEY_PREFIX)) {
			assertThat(output).doesNotContain("Started an embedded Redis server");
			assertThat(sample.get("/api/hello")).isEqualTo(HttpStatus.OK);
		}
		assertThat(TestRedis.listening(TestRedis.get().port())).isTrue();
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
