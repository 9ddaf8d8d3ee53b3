package io.github.ratelimit.sample.gateway;

import java.net.InetSocketAddress;

import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Profile;

/**
 * A Spring Cloud Gateway (its WebFlux server, on Reactor Netty) in front of the sample app, rate limited by the
 * starter: routes and policies in {@code application.yml}, one plan resolver.
 */
@SpringBootApplication
public class SampleGatewayApplication {

	/**
	 * Runs the gateway.
	 * @param args Spring Boot's command line arguments ({@code --sample.upstream=http://localhost:8081}, ...)
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleGatewayApplication.class, args);
	}

	/**
	 * The client key of the gateway's own {@code RequestRateLimiter} on the benchmark's route (profile
	 * {@code benchmark}, which {@code ratelimit-benchmarks} activates): the client's address, as the starter's
	 * {@code ip} key strategy gives it to the benchmark's policies.
	 * @return the key resolver
	 */
	@Bean
	@Profile("benchmark")
	KeyResolver benchmarkKeyResolver() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getRemoteAddress())
			.map(InetSocketAddress::getAddress)
			.map((address) -> address.getHostAddress());
	}

}
