package io.github.ratelimit.spring;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key strategies of configuration, once, over the neutral request every adapter hands the chain: each finds the
 * right client, and a strategy that finds nothing counts the request under the client's IP address. What each stack
 * puts in that view is its adapter's contract ({@code RateLimitRequestContract}); that the web filters key their
 * requests by the configured strategy, end to end, is in their own suites.
 */
@ExtendWith(OutputCaptureExtension.class)
class RequestKeyStrategiesTests {

	private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

	RequestKeyStrategiesTests() {
		this.beanFactory.registerSingleton("tenantKeyResolver", (KeyResolver) (request) -> {
			String tenant = request.header("X-Tenant");
			return (tenant != null) ? tenant.toLowerCase() : null;
		});
	}

	@Test
	void ipIsTheConnectionsAddressNeverAForwardedHeader() {
		assertThat(key("ip", from("203.0.113.7").header("X-Forwarded-For", "192.0.2.1"))).isEqualTo("203.0.113.7");
	}

	@Test
	void ipCountsEveryAddressOfAnIpv6Slash64AsOneClient() {
		assertThat(key("ip", from("2001:db8:5:1::1"))).isEqualTo(key("ip", from("2001:db8:5:1:abcd::1")))
			.isNotEqualTo(key("ip", from("2001:db8:5:2::1")));
	}

	@Test
	void ipCountsAnIpv4MappedAddressAsTheIpv4Address() {
		assertThat(key("ip", from("::ffff:203.0.113.7"))).isEqualTo("203.0.113.7");
	}

	@Test
	void globalCountsEveryClientTogether() {
		assertThat(key("global", from("203.0.113.7"))).isEqualTo(key("global", from("198.51.100.9")))
			.isEqualTo(RequestKeyResolvers.GLOBAL_KEY);
	}

	@Test
	void headerKeysByTheHeadersValueWhateverTheAddress() {
		assertThat(key("header:X-Api-Key", from("203.0.113.7").header("X-Api-Key", "key-1")))
			.isEqualTo(key("header:X-Api-Key", from("198.51.100.9").header("X-Api-Key", "key-1")))
			.isEqualTo("key-1");
	}

	@Test
	void paramKeysByTheQueryParameter() {
		assertThat(key("param:tenant", from("203.0.113.7").query("tenant", "acme"))).isEqualTo("acme");
	}

	@Test
	void principalKeysByTheUsersNameAndIsAppliedAfterAuthentication() {
		assertThat(key("principal", from("203.0.113.7").user("alice"))).isEqualTo("alice");
		assertThat(resolver("principal").requiresAuthentication()).isTrue();
		assertThat(resolver("header:X-Api-Key").requiresAuthentication()).isFalse();
	}

	@Test
	void exprKeysByTheExpressionOverTheNativeRequest() {
		assertThat(key("expr:getHeader('X-Tenant')", from("203.0.113.7").header("X-Tenant", "acme")))
			.isEqualTo("acme");
	}

	@Test
	void beanKeysByTheKeyResolverBean() {
		assertThat(key("bean:tenantKeyResolver", from("203.0.113.7").header("X-Tenant", "ACME"))).isEqualTo("acme");
	}

	@ParameterizedTest
	@ValueSource(strings = { "header:X-Api-Key", "param:tenant", "principal", "expr:getHeader('X-Tenant')",
			"bean:tenantKeyResolver" })
	void aStrategyThatFindsNothingCountsTheClientByItsAddress(String strategy) {
		assertThat(key(strategy, from("203.0.113.7"))).isEqualTo("ip:203.0.113.7");
		assertThat(key(strategy, from("2001:db8:6:1::1"))).isEqualTo(key(strategy, from("2001:db8:6:1::2")))
			.isEqualTo("ip:" + key("ip", from("2001:db8:6:1::1")))
			.isNotEqualTo(key(strategy, from("2001:db8:6:2::1")));
	}

	@Test
	void anExpressionThatFailsCountsTheClientByItsAddressAndWarns(CapturedOutput output) {
		String strategy = "expr:getHeader('X-Strategies-Tenant').toLowerCase()";
		assertThat(key(strategy, from("203.0.113.7"))).isEqualTo("ip:203.0.113.7");
		assertThat(output).contains("Key strategy '" + strategy + "' failed on a request");
		assertThat(key(strategy, from("203.0.113.7").header("X-Strategies-Tenant", "ACME"))).isEqualTo("acme");
	}

	@Test
	void anExpressionWhoseMethodThrowsCountsTheClientByItsAddress(CapturedOutput output) {
		String strategy = "expr:getHeader('X-Strategies-Tenant').substring(100)";
		assertThat(key(strategy, from("203.0.113.7").header("X-Strategies-Tenant", "short")))
			.isEqualTo("ip:203.0.113.7");
		assertThat(output).contains("Key strategy '" + strategy + "' failed on a request")
			.contains("StringIndexOutOfBoundsException");
	}

	@Test
	void aKeyThatLooksLikeAFallbackKeyCannotSpendThatClientsQuota() {
		assertThat(key("header:X-Api-Key", from("198.51.100.9").header("X-Api-Key", "ip:203.0.113.7")))
			.isEqualTo("~ip:203.0.113.7")
			.isNotEqualTo(key("header:X-Api-Key", from("203.0.113.7")));
		assertThat(key("header:X-Api-Key", from("198.51.100.9").header("X-Api-Key", "~ip:203.0.113.7")))
			.isEqualTo("~~ip:203.0.113.7");
	}

	@Test
	void aKeyTheCallerComputesFallsBackAsAStrategyThatFindsNothing(CapturedOutput output) {
		assertThat(RequestKeyResolvers.keyOf("a key", () -> "acme", from("203.0.113.7"), IpKeys.DEFAULT))
			.isEqualTo("acme");
		assertThat(RequestKeyResolvers.keyOf("a key", () -> null, from("203.0.113.7"), IpKeys.DEFAULT))
			.isEqualTo("ip:203.0.113.7");
		assertThat(RequestKeyResolvers.keyOf("a key", () -> "ip:203.0.113.7", from("198.51.100.9"), IpKeys.DEFAULT))
			.isEqualTo("~ip:203.0.113.7");
		assertThat(RequestKeyResolvers.keyOf("a key", () -> "", null, IpKeys.DEFAULT))
			.isEqualTo(RequestKeyResolvers.GLOBAL_KEY);
		String failing = "@RateLimited key '#strategies.missing' on StrategiesTests.call";
		assertThat(RequestKeyResolvers.keyOf(failing, () -> {
			throw new IllegalStateException("no customer");
		}, null, IpKeys.DEFAULT)).isEqualTo(RequestKeyResolvers.GLOBAL_KEY);
		assertThat(output).contains(failing + " failed, counting the call under the global key: no customer");
	}

	private KeyResolver resolver(String strategy) {
		return RequestKeyResolvers.of(strategy, this.beanFactory, IpKeys.DEFAULT);
	}

	private @Nullable String key(String strategy, NeutralRequest request) {
		return resolver(strategy).resolveAsync(request).toCompletableFuture().join();
	}

	private static NeutralRequest from(String address) {
		return NeutralRequest.from(address);
	}

}
