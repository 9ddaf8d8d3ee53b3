package io.github.ratelimit.spring.web.reactive;

import java.util.UUID;

import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.test.OwnReactorResources;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An override set through the endpoint of a WebFlux application on Redis applies to its WebFilter, and is removed
 * there too; under BlockHound, so neither the endpoint's write nor a decision blocks an event loop. The endpoint names
 * the client as on Spring MVC, although WebFlux passes it the policy's segment of the path with the key's, and shows
 * it hashed, as a header's keys are.
 */
class OverridesWebFluxTests {

	private static RunningServer server;

	@BeforeAll
	static void start() {
		server = RunningServer.start(WebApplicationType.REACTIVE,
				new Class<?>[] { WebFluxTestApplication.class, OwnReactorResources.class },
				"ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix(), "ratelimit.policies.hello.limits=2/1h",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.key=header:X-Client",
				"management.endpoints.web.exposure.include=ratelimits",
				"management.endpoint.ratelimits.access=unrestricted");
	}

	@AfterAll
	static void stop() {
		server.close();
	}

	@Test
	void anOverrideAppliesToTheWebFilter() {
		String client = "client-" + UUID.randomUUID();
		String hashed = StorageKeys.hashed(client);
		WireResponse set = WireResponse.sendJson(server.port(), "POST",
				"/actuator/ratelimits/hello/" + client + "/override", "{\"limits\": \"4/1h\"}");
		assertThat(set.status()).as(set.toString()).isEqualTo(200);
		assertThat(set.body()).as(set.toString()).contains("\"key\":\"" + hashed + "\"", "\"capacity\":4");
		int admitted = 0;
		for (int i = 0; i < 6; i++) {
			WireResponse response = WireResponse.get(server.port(), "/hello", "X-Client", client);
			assertThat(response.value("X-RateLimit-Limit")).as(response.toString()).isEqualTo("4");
			admitted += (response.status() == 200) ? 1 : 0;
		}
		assertThat(admitted).isEqualTo(4);
		assertThat(WireResponse.get(server.port(), "/actuator/ratelimits/hello/" + client).body())
			.contains("\"key\":\"" + hashed + "\"", "\"remaining\":0");

		WireResponse removed = WireResponse.send(server.port(), "DELETE",
				"/actuator/ratelimits/hello/" + client + "/override");
		assertThat(removed.status()).as(removed.toString()).isEqualTo(200);
		WireResponse after = WireResponse.get(server.port(), "/hello", "X-Client", client);
		assertThat(after.status()).isEqualTo(200);
		assertThat(after.value("X-RateLimit-Limit")).isEqualTo("2");
	}

}
