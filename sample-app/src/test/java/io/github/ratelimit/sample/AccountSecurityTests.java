package io.github.ratelimit.sample;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /api/account} behind HTTP Basic, limited before Spring Security's filter chain by client IP
 * ({@code account-guard}) and after it by user ({@code account}), while everything else stays open to anonymous
 * requests. Each test starts its own instance with its own keys, since every request comes from the same address.
 * The shipped capacities are kept, with periods long enough that no permit is refilled while a test runs.
 */
class AccountSecurityTests {

	private static final String GUARD_FOR_AN_HOUR = "ratelimit.policies.account-guard.limits=30/1h";

	private static final String ACCOUNT_FOR_AN_HOUR = "ratelimit.policies.account.limits=10/1h";

	@Test
	void wrongPasswordFloodIsRefusedAfterThirtyRequestsWithRetryAfter() {
		try (RunningSample sample = start(GUARD_FOR_AN_HOUR, ACCOUNT_FOR_AN_HOUR)) {
			long start = System.nanoTime();
			long firstAnswered = 0;
			for (int remaining = 29; remaining >= 0; remaining--) {
				account(sample.client(), "alice", "wrong").expectStatus()
					.isUnauthorized()
					.expectHeader()
					.valueEquals("X-RateLimit-Remaining", remaining);
				if (remaining == 29) {
					firstAnswered = System.nanoTime();
				}
			}
			long lastSent = System.nanoTime();
			ResponseSpec refused = account(sample.client(), "alice", "wrong");
			long lastAnswered = System.nanoTime();
			// a token bucket of 30/1h gains a permit every 120 s: after the 30 taken since the first request it lacks
			// one for 120 s less the time from the first decision to this one, which lies between lastSent -
			// firstAnswered and lastAnswered - start; Retry-After is that wait in whole seconds, rounded up
			long soonest = ceilSeconds(120_000_000_000L - (lastAnswered - start));
			long latest = ceilSeconds(120_000_000_000L - (lastSent - firstAnswered));
			refused.expectStatus()
				.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
				.expectHeader()
				.value("Retry-After", (seconds) -> assertThat(Long.parseLong(seconds)).isBetween(soonest, latest))
				.expectHeader()
				.valueEquals("RateLimit-Policy", "\"account-guard\";q=30;w=3600")
				.expectBody()
				.jsonPath("$.policy")
				.isEqualTo("account-guard");
			// the right password from that address waits too: the guard decides before the password is checked
			account(sample.client(), "alice", "alice-password").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		}
	}

	@Test
	void accountIsLimitedPerUser() {
		try (RunningSample sample = start(GUARD_FOR_AN_HOUR, ACCOUNT_FOR_AN_HOUR)) {
			for (int remaining = 9; remaining >= 0; remaining--) {
				account(sample.client(), "alice", "alice-password").expectStatus()
					.isOk()
					.expectHeader()
					.valueEquals("RateLimit-Policy", "\"account\";q=10;w=3600")
					.expectHeader()
					.valueEquals("X-RateLimit-Remaining", remaining)
					.expectBody()
					.json("{\"user\":\"alice\"}");
			}
			account(sample.client(), "alice", "alice-password").expectStatus()
				.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
				.expectHeader()
				.valueEquals("RateLimit-Policy", "\"account\";q=10;w=3600")
				.expectBody()
				.jsonPath("$.policy")
				.isEqualTo("account");
			account(sample.client(), "bob", "bob-password").expectStatus()
				.isOk()
				.expectBody()
				.json("{\"user\":\"bob\"}");
		}
	}

	@Test
	void shippedPoliciesLimitTheAccountWhileEverythingElseStaysOpenToAnonymousRequests() {
		try (RunningSample sample = start()) {
			RestTestClient client = sample.client();
			account(client, "alice", "alice-password").expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("RateLimit-Policy", "\"account\";q=10;w=60");
			client.get().uri("/api/account").exchange()
				.expectStatus().isUnauthorized()
				.expectHeader().valueEquals("RateLimit-Policy", "\"account-guard\";q=30;w=60");
			client.get().uri("/api/hello").exchange().expectStatus().isOk();
			client.get().uri("/api/unlimited").exchange().expectStatus().isOk();
			client.get().uri("/api/orders").header("X-Api-Key", "key-" + UUID.randomUUID()).exchange()
				.expectStatus().isOk();
			for (String endpoint : List.of("health", "info", "metrics", "prometheus", "ratelimits")) {
				client.get().uri("/actuator/" + endpoint).exchange().expectStatus().isOk();
			}
		}
	}

	private static long ceilSeconds(long nanos) {
		return -Math.floorDiv(-nanos, 1_000_000_000L);
	}

	private static RunningSample start(String... properties) {
		String[] all = new String[properties.length + 1];
		all[0] = "ratelimit.key-prefix=account-security-tests-" + UUID.randomUUID();
		System.arraycopy(properties, 0, all, 1, properties.length);
		return RunningSample.start(all);
	}

	private static ResponseSpec account(RestTestClient client, String user, String password) {
		return client.get().uri("/api/account").headers((headers) -> headers.setBasicAuth(user, password)).exchange();
	}

}
