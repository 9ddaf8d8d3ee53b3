package io.github.ratelimit.spring.annotation;

import java.security.Principal;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.reactive.server.WebTestClient.RequestHeadersSpec;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimited} on WebFlux controllers and services returning {@code Mono} and {@code Flux}, on Redis, behind
 * Spring Security WebFlux: refusals rendered as the filter's (429, {@code Retry-After}, rate limit headers, problem
 * body) by the controller advice and, outside controllers, by the web exception handler; keys from the request and
 * its principal; a policy the filter charged not charged again.
 */
@SpringBootTest(classes = RateLimitedWebFluxTests.WebFluxApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "ratelimit.policies.shared.paths=/reactive/shared",
				"ratelimit.policies.shared.limits=2/1h", "ratelimit.policies.wide.paths=/reactive/strict",
				"ratelimit.policies.wide.limits=10/1h", "ratelimit.policies.account.limits=1/1h",
				"ratelimit.policies.account.key=principal" })
@AutoConfigureWebTestClient
class RateLimitedWebFluxTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@Test
	void refusalOfAControllerMonoShouldBeA429WithTheFiltersHeadersAndProblemBody() {
		this.client.get().uri("/reactive/default").exchange().expectStatus().isOk()
			.expectHeader().valueEquals("RateLimit-Policy", "\"ReactiveController.byDefault\";q=1;w=3600")
			.expectHeader().valueEquals("X-RateLimit-Remaining", "0");
		assertQuotaExceeded(this.client.get().uri("/reactive/default"), "ReactiveController.byDefault",
				"/reactive/default");
	}

	@Test
	void refusalOfAControllerFluxShouldBeA429() {
		this.client.get().uri("/reactive/flux").exchange().expectStatus().isOk().expectBody(String.class)
			.isEqualTo("ab");
		assertQuotaExceeded(this.client.get().uri("/reactive/flux"), "flux-endpoint", "/reactive/flux");
	}

	@Test
	void refusalOutsideAControllerShouldBeRenderedByTheWebExceptionHandler() {
		this.client.get().uri("/functional").exchange().expectStatus().isOk().expectBody(String.class)
			.isEqualTo("functional");
		assertQuotaExceeded(this.client.get().uri("/functional"), "functional", "/functional");
	}

	@Test
	void configuredPrincipalKeyShouldCountEachAuthenticatedUser() {
		this.client.get().uri("/reactive/account").headers((headers) -> headers.setBasicAuth("alice", "alice"))
			.exchange().expectStatus().isOk();
		this.client.get().uri("/reactive/account").headers((headers) -> headers.setBasicAuth("bob", "bob"))
			.exchange().expectStatus().isOk();
		this.client.get().uri("/reactive/account").headers((headers) -> headers.setBasicAuth("alice", "alice"))
			.exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void principalInAKeyExpressionShouldBeTheAuthenticatedUser() {
		this.client.get().uri("/reactive/user").headers((headers) -> headers.setBasicAuth("alice", "alice"))
			.exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("alice");
		this.client.get().uri("/reactive/user").headers((headers) -> headers.setBasicAuth("bob", "bob"))
			.exchange().expectStatus().isOk();
		this.client.get().uri("/reactive/user").headers((headers) -> headers.setBasicAuth("alice", "alice"))
			.exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void requestInAKeyExpressionShouldBeTheServerHttpRequest() {
		this.client.get().uri("/reactive/tenant").header("X-Tenant", "acme").exchange().expectStatus().isOk();
		this.client.get().uri("/reactive/tenant").header("X-Tenant", "globex").exchange().expectStatus().isOk();
		this.client.get().uri("/reactive/tenant").header("X-Tenant", "acme").exchange().expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void policyMetByTheFilterAndAnAnnotationShouldBeChargedOnce() {
		this.client.get().uri("/reactive/shared").exchange().expectStatus().isOk().expectHeader()
			.valueEquals("X-RateLimit-Remaining", "1");
		this.client.get().uri("/reactive/shared").exchange().expectStatus().isOk().expectHeader()
			.valueEquals("X-RateLimit-Remaining", "0");
		this.client.get().uri("/reactive/shared").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void annotationPolicyThatBindsMoreThanTheFiltersShouldShowItsHeaders() {
		this.client.get().uri("/reactive/strict").exchange().expectStatus().isOk()
			.expectHeader().valueEquals("RateLimit-Policy", "\"strict\";q=1;w=3600")
			.expectHeader().valueEquals("X-RateLimit-Remaining", "0");
	}

	private void assertQuotaExceeded(RequestHeadersSpec<?> request, String policy, String instance) {
		EntityExchangeResult<byte[]> refused = request.exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectHeader().exists("Retry-After")
			.expectHeader().valueEquals("X-RateLimit-Limit", "1")
			.expectHeader().valueEquals("X-RateLimit-Remaining", "0")
			.expectHeader().valueMatches("RateLimit", "\"" + policy + "\";r=0;t=\\d+")
			.expectHeader().valueEquals("RateLimit-Policy", "\"" + policy + "\";q=1;w=3600")
			.expectBody().returnResult();
		Map<String, Object> problem = JSON.readValue(refused.getResponseBody(), new TypeReference<>() {
		});
		assertThat(problem).containsEntry("type", RateLimitExceededException.QUOTA_EXCEEDED)
			.containsEntry("status", 429)
			.containsEntry("policy", policy)
			.containsEntry("instance", instance)
			.containsEntry("violated-policies", List.of(policy));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableWebFluxSecurity
	@Import({ ReactiveController.class, GreetingService.class })
	static class WebFluxApplication {

		@Bean
		SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
			return http.authorizeExchange((exchanges) -> exchanges.anyExchange().permitAll())
				.httpBasic(Customizer.withDefaults())
				.csrf(ServerHttpSecurity.CsrfSpec::disable)
				.build();
		}

		@Bean
		MapReactiveUserDetailsService users() {
			return new MapReactiveUserDetailsService(
					User.withUsername("alice").password("{noop}alice").roles("USER").build(),
					User.withUsername("bob").password("{noop}bob").roles("USER").build());
		}

		@Bean
		RouterFunction<ServerResponse> functional(GreetingService greetings) {
			return RouterFunctions.route(RequestPredicates.GET("/functional"),
					(request) -> greetings.greet().flatMap((greeting) -> ServerResponse.ok().bodyValue(greeting)));
		}

	}

	@RestController
	@RequestMapping("/reactive")
	static class ReactiveController {

		@GetMapping("/default")
		@RateLimited(limits = "1/1h")
		public Mono<String> byDefault() {
			return Mono.just("ok");
		}

		@GetMapping("/flux")
		@RateLimited(name = "flux-endpoint", limits = "1/1h")
		public Flux<String> flux() {
			return Flux.just("a", "b");
		}

		@GetMapping("/account")
		@RateLimited("account")
		public Mono<String> account() {
			return Mono.just("account");
		}

		@GetMapping("/user")
		@RateLimited(name = "per-user", limits = "1/1h", key = "#principal.name")
		public Mono<String> user(Principal principal) {
			return Mono.just(principal.getName());
		}

		@GetMapping("/tenant")
		@RateLimited(name = "per-tenant", limits = "1/1h", key = "#request.headers.getFirst('X-Tenant')")
		public Mono<String> tenant() {
			return Mono.just("tenant");
		}

		@GetMapping("/shared")
		@RateLimited("shared")
		public Mono<String> shared() {
			return Mono.just("shared");
		}

		@GetMapping("/strict")
		@RateLimited(name = "strict", limits = "1/1h")
		public Mono<String> strict() {
			return Mono.just("strict");
		}

	}

	static class GreetingService {

		@RateLimited(name = "functional", limits = "1/1h")
		public Mono<String> greet() {
			return Mono.just("functional");
		}

	}

}
