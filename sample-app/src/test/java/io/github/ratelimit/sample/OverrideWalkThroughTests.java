package io.github.ratelimit.sample;

import java.time.Duration;
import java.util.UUID;

import io.github.ratelimit.core.StorageKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's walk-through: the operator raises one API key's limit through the endpoint of one instance, the other
 * instance on the same Redis applies it, and removing it puts the key back on its plan everywhere.
 */
class OverrideWalkThroughTests {

	private static final String KEY_PREFIX = "override-walk-through-tests-" + UUID.randomUUID();

	private static RunningSample first;

	private static RunningSample second;

	@BeforeAll
	static void startTwoInstancesOnOneRedis() {
		first = RunningSample.start("ratelimit.key-prefix=" + KEY_PREFIX);
		second = RunningSample.start("ratelimit.key-prefix=" + KEY_PREFIX);
	}

	@AfterAll
	static void stop() {
		first.close();
		second.close();
	}

	@Test
	void overrideSetOnOneInstanceIsAppliedByTheOtherAndRemovedEverywhere() {
		String apiKey = "key-" + UUID.randomUUID();
		assertThat(policyOf(second, apiKey)).isEqualTo("\"orders-free\";q=10;w=60");
		first.client().post().uri("/actuator/ratelimits/orders/" + apiKey + "/override")
			.headers((headers) -> headers.setBasicAuth("admin", "admin-password"))
			.contentType(MediaType.APPLICATION_JSON).body("{\"limits\": \"50/1m\", \"expiresIn\": \"10m\"}")
			.exchange()
			.expectStatus().isOk()
			.expectBody()
			.jsonPath("$.key").isEqualTo(StorageKeys.hashed(apiKey))
			.jsonPath("$.capacity").isEqualTo(50)
			.jsonPath("$.plan").isEqualTo("free")
			.jsonPath("$.override.setBy").isEqualTo("admin");
		assertThat(policyOf(first, apiKey)).isEqualTo("\"orders-override\";q=50;w=60");
		assertThat(eventually(second, apiKey, "\"orders-override\";q=50;w=60")).isEqualTo("\"orders-override\";q=50;w=60");
		first.client().delete().uri("/actuator/ratelimits/orders/" + apiKey + "/override")
			.headers((headers) -> headers.setBasicAuth("admin", "admin-password"))
			.exchange()
			.expectStatus().isOk()
			.expectBody().jsonPath("$.plan").isEqualTo("free").jsonPath("$.override").isEmpty();
		assertThat(eventually(second, apiKey, "\"orders-free\";q=10;w=60")).isEqualTo("\"orders-free\";q=10;w=60");
	}

	/**
	 * The instance's {@code RateLimit-Policy} for the key once it is the one expected, or the last one seen after two
	 * seconds (the refresh interval is half a second).
	 */
	private static String eventually(RunningSample instance, String apiKey, String expected) {
		long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		String policy = policyOf(instance, apiKey);
		while (!expected.equals(policy) && System.nanoTime() < deadline) {
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			policy = policyOf(instance, apiKey);
		}
		return policy;
	}

	private static String policyOf(RunningSample instance, String apiKey) {
		return instance.client().get().uri("/api/orders").header("X-Api-Key", apiKey).exchange()
			.returnResult(String.class).getResponseHeaders().getFirst("RateLimit-Policy");
	}

}
