package io.github.ratelimit.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class StorageKeysTests {

	private final Policy policy = Policy.of("orders", Algorithm.TOKEN_BUCKET, "10/1m", "500/1d");

	@Test
	void keysNamePrefixPolicyFingerprintClientAndLimit() {
		assertThat(new StorageKeys("rl", this.policy).keys("203.0.113.7")).containsExactly(
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
		StorageKeys keys = new StorageKeys("ratelimit", this.policy);
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
		assertThat(new StorageKeys("rl", Policy.of("hello", Algorithm.TOKEN_BUCKET, "5/10s")).keys("127.0.0.1"))
			.containsExactly("rl:hello:6bfbb2ec:{127.0.0.1}:0");
	}

	@Test
	void everyKeyOfAClientStartsWithItsClientKey() {
		StorageKeys keys = new StorageKeys("rl", this.policy);
		assertThat(keys.clientKey("203.0.113.7")).isEqualTo("rl:orders:" + this.policy.fingerprint() + ":{203.0.113.7}:");
		assertThat(keys.keys("203.0.113.7")).allSatisfy((key) -> assertThat(key).startsWith(keys.clientKey("203.0.113.7")));
	}

	@Test
	void encodedKeysAreTheKeysInUtf8() {
		StorageKeys keys = new StorageKeys("rl", new Policy("p", Algorithm.TOKEN_BUCKET,
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
		assertThat(StorageKeys.clientPart("a:b")).isEqualTo("a:b");
		assertThat(StorageKeys.clientPart("z".repeat(64))).isEqualTo("z".repeat(64));
		assertThat(StorageKeys.clientPart("z".repeat(65))).startsWith("#").hasSize(65);
		assertThat(StorageKeys.clientPart("é".repeat(33))).startsWith("#").hasSize(65);
		assertThat(StorageKeys.clientPart("{a}")).startsWith("#").doesNotContain("{", "}");
		assertThat(StorageKeys.clientPart("{a}")).isNotEqualTo(StorageKeys.clientPart("{a}}"));
	}

	@Test
	void clientsWithUnpairedSurrogatesNeverShareKeys() {
		Policy policy = Policy.of("api", Algorithm.GCRA, "1/1s");
		StorageKeys keys = new StorageKeys("ratelimit", policy);
		List<String> clients = List.of("\uD800", "\uDC00", "?", "\uD800a", "\uD800b", "?a", "\uDBFFa", "a\uDC00",
				"\uDC00\uD800", "\uD800\uDC00", "\uD800\uDC00\uD800");
		List<String> encoded = clients.stream()
			.map((client) -> new String(keys.encodedKeys(client)[0], StandardCharsets.UTF_8))
			.toList();
		assertThat(encoded).doesNotHaveDuplicates();
		// a valid pair (U+10000) and ordinary text keep the encoding they always had
		assertThat(StorageKeys.clientPart("\uD800\uDC00")).isEqualTo("\uD800\uDC00");
		assertThat(StorageKeys.clientPart("?a")).isEqualTo("?a");
		assertThat(StorageKeys.clientPart("\uD800a")).startsWith("#").hasSize(65);
	}

	/**
	 * The hashed form of a key is pinned too: a client whose key is a secret is counted under it, and an upgrade that
	 * changed it would count every such client afresh and lose its override.
	 */
	@Test
	void hashedKeysArePinnedAcrossReleases() {
		assertThat(StorageKeys.hashed("key-alice")).isEqualTo("#h4ROwLDXOOiWKGQFiKyqSA");
		assertThat(StorageKeys.hashed("")).isEqualTo("#47DEQpj8HBSa-_TImW-5JA");
		assertThat(new StorageKeys("ratelimit", this.policy).keys(StorageKeys.hashed("key-alice"))).containsExactly(
				"ratelimit:orders:d8dd466d:{#h4ROwLDXOOiWKGQFiKyqSA}:0",
				"ratelimit:orders:d8dd466d:{#h4ROwLDXOOiWKGQFiKyqSA}:1");
	}

	@Test
	void hashedKeysAreShortStorableAndHideTheKey() {
		String secret = "sk-live-" + "7Hq2".repeat(20);
		String hashed = StorageKeys.hashed(secret);
		assertThat(hashed).hasSize(23).startsWith("#").matches("#[A-Za-z0-9_-]{22}").doesNotContain("7Hq2");
		assertThat(StorageKeys.clientPart(hashed)).isEqualTo(hashed);
		assertThat(StorageKeys.hashed(secret)).isEqualTo(hashed);
		assertThat(StorageKeys.hashed("{" + secret + "}")).matches("#[A-Za-z0-9_-]{22}");
	}

	@Test
	void hashedKeysOfDifferentClientsDiffer() {
		List<String> clients = new ArrayList<>(AbstractRateLimiterBackendTests.hostileKeys());
		clients.addAll(List.of("\uD800", "\uDC00", "?", "\uD800a", "?a", "\uD800\uDC00", "a", "A", "a ", " a"));
		for (int i = 0; i < 10_000; i++) {
			clients.add("key-" + i);
		}
		List<String> distinct = clients.stream().distinct().toList();
		assertThat(distinct.stream().map(StorageKeys::hashed)).doesNotHaveDuplicates();
	}

	@Test
	void hostileClientsGetDistinctKeys() {
		List<String> clients = AbstractRateLimiterBackendTests.hostileKeys();
		Set<String> keys = new HashSet<>();
		clients.forEach((client) -> keys.addAll(new StorageKeys("rl", this.policy).keys(client)));
		assertThat(keys).hasSize(clients.size() * 2);
	}

	@Test
	void planKeysNameThePlanBeforeTheFingerprint() {
		Policy pro = this.policy.withPlan("pro", Algorithm.TOKEN_BUCKET, this.policy.limits());
		assertThat(new StorageKeys("ratelimit", pro).keys("203.0.113.7")).containsExactly(
				"ratelimit:orders:pro.d8dd466d:{203.0.113.7}:0", "ratelimit:orders:pro.d8dd466d:{203.0.113.7}:1");
	}

	/**
	 * Each plan's state is its own, even where two plans have the same limits (a client upgraded to a plan of the same
	 * limits starts fresh too), and apart from the state of the policy without plans.
	 */
	@Test
	void plansOfOnePolicyNeverShareKeys() {
		List<Policy> plans = List.of(this.policy, plan(this.policy, "free"), plan(this.policy, "pro"),
				plan(this.policy, "pro-2"), plan(this.policy, "pro_2"), plan(this.policy, "override"),
				this.policy.withPlan("pro", Algorithm.GCRA, this.policy.limits()),
				this.policy.withPlan("pro", Algorithm.TOKEN_BUCKET, List.of(Limit.parse("10/1m"))));
		assertNoKeyShared(plans, List.of("203.0.113.7", "pro.d8dd466d", "{a}", "x".repeat(65)));
	}

	/**
	 * A policy may be named like another policy's plan and its keys: policy names take any character but braces, so
	 * {@code orders:pro} and {@code orders:pro.d8dd466d} are policy names; none of their keys is a plan's key.
	 */
	@Test
	void planAndAPolicyNamedLikeItNeverShareKeys() {
		Policy pro = plan(this.policy, "pro");
		List<Policy> policies = new ArrayList<>(List.of(this.policy, pro));
		for (String name : List.of("orders:pro", "orders.pro", "orders-pro", "orders:pro." + this.policy.fingerprint(),
				"orders:pro." + pro.fingerprint() + ":", "pro", "orders:" + this.policy.fingerprint())) {
			Policy named = new Policy(name, this.policy.algorithm(), this.policy.limits());
			policies.add(named);
			policies.add(plan(named, "pro"));
		}
		assertNoKeyShared(policies, List.of("203.0.113.7", "pro.d8dd466d:{203.0.113.7}", "x".repeat(65)));
	}

	/**
	 * Redis Cluster hashes only the first {@code {..}} of a key: every key of one decision under a plan has the same,
	 * the client's part, so the decision's script runs on one node.
	 */
	@Test
	void everyKeyOfAPlanDecisionSharesOneHashSlot() {
		StorageKeys keys = new StorageKeys("rl", plan(this.policy, "pro"));
		for (String client : List.of("203.0.113.7", "ünï{cödé}", "x".repeat(100), "a}b{c")) {
			Set<String> tags = new HashSet<>();
			keys.keys(client).forEach((key) -> tags.add(hashTag(key)));
			assertThat(tags).as("hash tags of %s", client).containsExactly(StorageKeys.clientPart(client));
		}
	}

	private static Policy plan(Policy policy, String plan) {
		return policy.withPlan(plan, policy.algorithm(), policy.limits());
	}

	private static void assertNoKeyShared(List<Policy> policies, List<String> clients) {
		Set<String> keys = new HashSet<>();
		int count = 0;
		for (Policy policy : policies) {
			for (String client : clients) {
				List<String> clientKeys = new StorageKeys("rl", policy).keys(client);
				keys.addAll(clientKeys);
				count += clientKeys.size();
			}
		}
		assertThat(keys).as("keys of %s", policies).hasSize(count);
	}

	/** What Redis Cluster hashes: the text between the first '{' and the next '}', when not empty. */
	private static String hashTag(String key) {
		int open = key.indexOf('{');
		int close = key.indexOf('}', open + 1);
		assertThat(open).as("'{' in %s", key).isNotNegative();
		assertThat(close).as("'}' in %s", key).isGreaterThan(open + 1);
		return key.substring(open + 1, close);
	}

	@Test
	void refusesPrefixesWithBraces() {
		assertThatIllegalArgumentException().isThrownBy(() -> new StorageKeys("r{l}", this.policy))
			.withMessageContaining("must not contain '{' or '}'");
		assertThatIllegalArgumentException().isThrownBy(() -> new StorageKeys("", this.policy))
			.withMessageContaining("must not be blank");
	}

}
