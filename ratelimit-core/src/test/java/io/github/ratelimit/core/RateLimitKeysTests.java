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

	/**
	 * The keys of today's releases, written out: a change to how keys or fingerprints are derived would make instances
	 * of a rolling upgrade count one client under two keys, each admitting the whole limit.
	 */
	@Test
	void fingerprintsArePinnedAcrossReleases() {
		assertThat(this.policy.fingerprint()).isEqualTo("d8dd466d");
		assertThat(Policy.of("hello", Algorithm.TOKEN_BUCKET, "5/10s").fingerprint()).isEqualTo("6bfbb2ec");
		assertThat(Policy.of("api", Algorithm.GCRA, "100/1s").fingerprint()).isEqualTo("b61dddae");
		assertThat(Policy.of("login", Algorithm.FIXED_WINDOW, "5/1m", "20/1h").fingerprint()).isEqualTo("0c07390b");
		assertThat(Policy.of("search", Algorithm.SLIDING_WINDOW, "1000/1d").fingerprint()).isEqualTo("fd0d7abf");
		assertThat(Policy.of("otp", Algorithm.SLIDING_LOG, "3/5m").fingerprint()).isEqualTo("dcb96182");
	}

	@Test
	void keysArePinnedAcrossReleases() {
		RateLimitKeys keys = new RateLimitKeys("ratelimit", this.policy);
		assertThat(keys.keys("203.0.113.7")).containsExactly("ratelimit:orders:d8dd466d:{203.0.113.7}:0",
				"ratelimit:orders:d8dd466d:{203.0.113.7}:1");
		assertThat(keys.keys("2001:db8::/64")).containsExactly("ratelimit:orders:d8dd466d:{2001:db8::/64}:0",
				"ratelimit:orders:d8dd466d:{2001:db8::/64}:1");
		assertThat(keys.keys("ip:198.51.100.1")).containsExactly("ratelimit:orders:d8dd466d:{ip:198.51.100.1}:0",
				"ratelimit:orders:d8dd466d:{ip:198.51.100.1}:1");
		assertThat(keys.keys("\u00fcn\u00efc\u00f6d\u00e9")).containsExactly(
				"ratelimit:orders:d8dd466d:{\u00fcn\u00efc\u00f6d\u00e9}:0",
				"ratelimit:orders:d8dd466d:{\u00fcn\u00efc\u00f6d\u00e9}:1");
		assertThat(keys.keys("{a}")).containsExactly(
				"ratelimit:orders:d8dd466d:{#460c3a93211614ac783c0f1d1bbbcb45a6da87d6421b5c0771772588f1015ff8}:0",
				"ratelimit:orders:d8dd466d:{#460c3a93211614ac783c0f1d1bbbcb45a6da87d6421b5c0771772588f1015ff8}:1");
		assertThat(keys.keys("x".repeat(65))).containsExactly(
				"ratelimit:orders:d8dd466d:{#9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9}:0",
				"ratelimit:orders:d8dd466d:{#9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9}:1");
		assertThat(new RateLimitKeys("rl", Policy.of("hello", Algorithm.TOKEN_BUCKET, "5/10s")).keys("127.0.0.1"))
			.containsExactly("rl:hello:6bfbb2ec:{127.0.0.1}:0");
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
