package io.github.ratelimit.sample.webflux;

import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.MediaType;

/**
 * The {@code ratelimits} endpoint's writes (resetting a client, setting and removing an override) need the HTTP Basic
 * operator {@code admin}; its reads stay open.
 */
class OperatorAccessTests {

	private static final String OVERRIDE = "/actuator/ratelimits/orders/key-1/override";

	private static final String OVERRIDE_BODY = "{\"limits\": \"1000/1m\", \"expiresIn\": \"10m\"}";

	private static RunningSample sample;

	@BeforeAll
	static void start() {
		sample = RunningSample.start("ratelimit.key-prefix=operator-access-webflux-tests-" + UUID.randomUUID());
	}

	@AfterAll
	static void stop() {
		sample.close();
	}

	@Test
	void anonymousOverrideIsUnauthorized() {
		sample.client().post().uri(OVERRIDE).contentType(MediaType.APPLICATION_JSON).bodyValue(OVERRIDE_BODY).exchange()
			.expectStatus().isUnauthorized()
			.expectHeader().exists("WWW-Authenticate");
		sample.client().delete().uri(OVERRIDE).exchange().expectStatus().isUnauthorized();
	}

	@Test
	void anonymousResetIsUnauthorized() {
		sample.client().delete().uri("/actuator/ratelimits/hello/127.0.0.1").exchange().expectStatus().isUnauthorized();
	}

	@Test
	void userWhoIsNoOperatorIsForbidden() {
		sample.client().post().uri(OVERRIDE).headers((headers) -> headers.setBasicAuth("alice", "alice-password"))
			.contentType(MediaType.APPLICATION_JSON).bodyValue(OVERRIDE_BODY).exchange()
			.expectStatus().isForbidden();
	}

	@Test
	void operatorResetsAClient() {
		sample.client().delete().uri("/actuator/ratelimits/hello/127.0.0.1")
			.headers((headers) -> headers.setBasicAuth("admin", "admin-password")).exchange()
			.expectStatus().isOk()
			.expectBody().jsonPath("$.policy").isEqualTo("hello");
	}

	@Test
	void readsStayOpenToAnonymousRequests() {
		sample.client().get().uri("/actuator/ratelimits").exchange()
			.expectStatus().isOk()
			.expectBody().jsonPath("$.policies.orders").exists();
		sample.client().get().uri("/actuator/ratelimits/hello/127.0.0.1").exchange().expectStatus().isOk();
	}

}
