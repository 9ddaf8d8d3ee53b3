package io.github.ratelimit.docs.keys;

// tag::netty[]
import java.net.InetSocketAddress;
import java.util.Set;

import reactor.netty.transport.AddressUtils;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class TrustedProxyConfiguration {

	@Bean
	NettyServerCustomizer trustedProxyForwardedHeaders() {
		Set<String> proxies = Set.of("10.0.0.5", "10.0.0.6"); // your proxies
		return (server) -> server.forwarded((connection, request) -> {
			String forwardedFor = request.headers().get("X-Forwarded-For");
			InetSocketAddress peer = connection.getRemoteAddress();
			if (forwardedFor == null || peer == null || !proxies.contains(peer.getHostString())) {
				return connection; // not from a proxy: its own address
			}
			String appended = forwardedFor.substring(forwardedFor.lastIndexOf(',') + 1).trim();
			return connection.withRemoteAddress(AddressUtils.parseAddress(appended, peer.getPort()));
		});
	}

}
// end::netty[]
