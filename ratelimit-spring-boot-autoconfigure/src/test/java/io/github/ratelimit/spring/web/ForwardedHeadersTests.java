package io.github.ratelimit.spring.web;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.github.ratelimit.spring.web.ForwardedHeadersServers.LIMIT;
import static io.github.ratelimit.spring.web.ForwardedHeadersServers.REQUESTS;
import static io.github.ratelimit.spring.web.ForwardedHeadersServers.admitted;
import static io.github.ratelimit.spring.web.ForwardedHeadersServers.forged;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests, on a real Tomcat over raw HTTP connections, what an {@code ip} policy counts when clients forge forwarding headers and
 * the proxy in front appends the address it saw, as proxies usually do: under {@code native} the client the trusted
 * proxy saw, whatever was forged; under {@code framework} whatever the client wrote first, unless the edge proxy
 * overwrites the headers. Every request comes from 127.0.0.1, a trusted proxy by default. Real clients use
 * 203.0.113.0/24 and 2001:db8::/32, forged addresses 198.51.100.0/24: none of them a default internal proxy.
 */
class ForwardedHeadersTests {

	private static final ForwardedHeadersServers servers = new ForwardedHeadersServers();

	private static int nativeStrategy;

	private static int nativeWithOneTrustedProxy;

	private static int nativeBehindAnUntrustedProxy;

	private static int frameworkStrategy;

	@BeforeAll
	static void start() {
		nativeStrategy = servers.start("server.forward-headers-strategy=native");
		nativeWithOneTrustedProxy = servers.start("server.forward-headers-strategy=native",
				"server.tomcat.remoteip.internal-proxies=127.0.0.1/32");
		nativeBehindAnUntrustedProxy = servers.start("server.forward-headers-strategy=native",
				"server.tomcat.remoteip.internal-proxies=192.0.2.1/32");
		frameworkStrategy = servers.start("server.forward-headers-strategy=framework");
	}

	@AfterAll
	static void stop() {
		servers.close();
	}

	@Test
	void nativeShouldCountTheClientTheProxyAppendedWhateverForwardedForItForged() {
		assertThat(admitted(nativeStrategy, (i) -> new String[] { "X-Forwarded-For", forged(i) + ", 203.0.113.1" }))
			.isEqualTo(LIMIT);
	}

	@Test
	void nativeShouldIgnoreAForgedForwardedHeader() {
		assertThat(admitted(nativeStrategy,
				(i) -> new String[] { "Forwarded", "for=" + forged(i), "X-Forwarded-For", "203.0.113.2" }))
			.isEqualTo(LIMIT);
	}

	@Test
	void nativeShouldCountEveryAddressOfOneIpv6Slash64AsOneClient() {
		assertThat(admitted(nativeStrategy, (i) -> new String[] { "X-Forwarded-For", "2001:db8:3:4::" + (i + 1) }))
			.isEqualTo(LIMIT);
		assertThat(admitted(nativeStrategy, (i) -> new String[] { "X-Forwarded-For", "2001:db8:3:5::1" }))
			.isEqualTo(LIMIT);
	}

	@Test
	void nativeShouldTrustForwardedForFromAPrivateClientAsFromAProxyWhileEveryPrivateRangeIsAnInternalProxy() {
		assertThat(admitted(nativeStrategy, (i) -> new String[] { "X-Forwarded-For", forged(i) + ", 10.9.8.7" }))
			.isEqualTo(REQUESTS);
	}

	@Test
	void nativeWithOnlyTheRealProxyTrustedShouldCountAPrivateClientWhateverItForged() {
		assertThat(admitted(nativeWithOneTrustedProxy,
				(i) -> new String[] { "X-Forwarded-For", forged(i) + ", 10.9.8.7" }))
			.isEqualTo(LIMIT);
	}

	@Test
	void nativeShouldIgnoreForwardedForOnAConnectionFromAnAddressThatIsNoTrustedProxy() {
		assertThat(admitted(nativeBehindAnUntrustedProxy,
				(i) -> new String[] { "X-Forwarded-For", "203.0.113." + (10 + i) }))
			.isEqualTo(LIMIT);
	}

	@Test
	void frameworkShouldCountEachForgedLeftmostForwardedForAsANewClient() {
		assertThat(admitted(frameworkStrategy, (i) -> new String[] { "X-Forwarded-For", forged(i) + ", 203.0.113.3" }))
			.isEqualTo(REQUESTS);
	}

	@Test
	void frameworkShouldCountEachForgedForwardedHeaderAsANewClientEvenWhenForwardedForIsOverwritten() {
		assertThat(admitted(frameworkStrategy,
				(i) -> new String[] { "Forwarded", "for=" + forged(i), "X-Forwarded-For", "203.0.113.4" }))
			.isEqualTo(REQUESTS);
	}

	@Test
	void frameworkBehindAnEdgeProxyThatOverwritesTheForwardingHeadersShouldCountTheClient() {
		assertThat(admitted(frameworkStrategy, (i) -> new String[] { "X-Forwarded-For", "203.0.113.5" }))
			.isEqualTo(LIMIT);
	}

}
