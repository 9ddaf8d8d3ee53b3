package io.github.ratelimit.core;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RateLimitKeysTests {

	private final Policy policy = Policy.of("orders", Algorithm.TOKEN_BUCKET, "10/1m", "500/1d");

	@Test
	void keysNamePrefixPolicyFingerprintClientAndLimit() {
		assertThat(new RateLimitKeys("rl", this.policy).keys("203.0.113.7")).containsExactly(
				"rl:orders:" + this.policy.fingerprint() + ":{203.0.113.7}:0",
				"rl:orders:" + this.policy.fingerprint() + ":{203.0.113.7}:1");
	}

	@Test
	void everyKeyOfAClientStartsWithItsClientKey() {
		RateLimitKeys keys = new RateLimitKeys("rl", this.policy);
		assertThat(keys.clientKey("203.0.113.7")).isEqualTo("rl:orders:" + this.policy.fingerprint() + ":{203.0.113.7}:");
		assertThat(keys.keys("203.0.113.7")).allSatisfy((key) -> assertThat(key).startsWith(keys.clientKey("203.0.113.7")));
	}

	@Test
	void encodedKeysAreTheKeysInUtf8() {
		RateLimitKeys keys = new RateLimitKeys("rl", new Policy("p", Algorithm.TOKEN_BUCKET,
				Collections.nCopies(12, Limit.parse("5/1s"))));
		for (String client : List.of("203.0.113.7", "ünï{cödé}", "x".repeat(100))) {
			byte[][] expected = keys.keys(client).stream().map((key) -> key.getBytes(StandardCharsets.UTF_8))
				.toArray(byte[][]::new);
			assertThat(expected.length).isEqualTo(12);
			assertThat(keys.encodedKeys(client)).isDeepEqualTo(expected);
		}
	}

	@Test
	void clientPartIsKeptUpTo64BytesWithoutBraces() {
		assertThat(RateLimitKeys.clientPart("a:b")).isEqualTo("a:b");
		assertThat(RateLimitKeys.clientPart("z".repeat(64))).isEqualTo("z".repeat(64));
		assertThat(RateLimitKeys.clientPart("z".repeat(65))).startsWith("#").hasSize(65);
		assertThat(RateLimitKeys.clientPart("é".repeat(33))).startsWith("#").hasSize(65);
		assertThat(RateLimitKeys.clientPart("{a}")).startsWith("#").doesNotContain("{", "}");
		assertThat(RateLimitKeys.clientPart("{a}")).isNotEqualTo(RateLimitKeys.clientPart("{a}}"));
	}

	@Test
	void clientsWithUnpairedSurrogatesNeverShareKeys() {
		Policy policy = Policy.of("api", Algorithm.GCRA, "1/1s");
		RateLimitKeys keys = new RateLimitKeys("ratelimit", policy);
		List<String> clients = List.of("\uD800", "\uDC00", "?", "\uD800a", "\uD800b", "?a", "\uDBFFa", "a\uDC00",
				"\uDC00\uD800", "\uD800\uDC00", "\uD800\uDC00\uD800");
		List<String> encoded = clients.stream()
			.map((client) -> new String(keys.encodedKeys(client)[0], StandardCharsets.UTF_8))
			.toList();
		assertThat(encoded).doesNotHaveDuplicates();
		// a valid pair (U+10000) and ordinary text keep the encoding they always had
		assertThat(RateLimitKeys.clientPart("\uD800\uDC00")).isEqualTo("\uD800\uDC00");
		assertThat(RateLimitKeys.clientPart("?a")).isEqualTo("?a");
		assertThat(RateLimitKeys.clientPart("\uD800a")).startsWith("#").hasSize(65);
	}

	@Test
	void hostileClientsGetDistinctKeys() {
		List<String> clients = AbstractRateLimiterBackendTests.hostileKeys();
		Set<String> keys = new HashSet<>();
		clients.forEach((client) -> keys.addAll(new RateLimitKeys("rl", this.policy).keys(client)));
		assertThat(keys).hasSize(clients.size() * 2);
	}

	@Test
	void refusesPrefixesWithBraces() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitKeys("r{l}", this.policy))
			.withMessageContaining("must not contain '{' or '}'");
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitKeys("", this.policy))
			.withMessageContaining("must not be blank");
	}

}
