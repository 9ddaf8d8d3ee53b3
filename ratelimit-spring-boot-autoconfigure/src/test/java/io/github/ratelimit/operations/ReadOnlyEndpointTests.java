package io.github.ratelimit.operations;

import io.github.ratelimit.test.HttpProbe;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimits} endpoint with its default, read-only access: state can be read, no client can be reset.
 */
@SpringBootTest(classes = OperationsTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.policies.hello.limits=1/1h", "ratelimit.policies.hello.paths=/hello",
				"management.endpoints.web.exposure.include=ratelimits" })
class ReadOnlyEndpointTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Test
	void deleteIsRefusedWithoutUnrestrictedAccess() {
		HttpProbe http = new HttpProbe(this.port);
		assertThat(http.get("/hello").statusCode()).isEqualTo(200);
		assertThat(http.get("/hello").statusCode()).isEqualTo(429);
		assertThat(http.get("/actuator/ratelimits/hello/127.0.0.1").statusCode()).isEqualTo(200);
		assertThat(http.delete("/actuator/ratelimits/hello/127.0.0.1").statusCode()).isEqualTo(405);
		assertThat(http.get("/hello").statusCode()).isEqualTo(429);
	}

	@Test
	void overridesCannotBeSetOrRemovedWithoutUnrestrictedAccess() {
		HttpProbe http = new HttpProbe(this.port);
		assertThat(http.post("/actuator/ratelimits/hello/127.0.0.1/override", "{\"limits\": \"5/1h\"}")
			.statusCode()).isEqualTo(405);
		assertThat(http.delete("/actuator/ratelimits/hello/127.0.0.1/override").statusCode()).isEqualTo(405);
		assertThat(http.get("/actuator/ratelimits/hello").statusCode()).isEqualTo(200);
		assertThat(http.get("/actuator/ratelimits/hello/127.0.0.1").body()).contains("\"override\":null");
	}

}
