package io.github.ratelimit.spring.web;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that requests whose URI Spring or {@code java.net.URI} cannot parse get a deliberate answer from the
 * filter, never a 500.
 */
@SpringBootTest(classes = FilterTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.policies.api.paths=/api/**", "ratelimit.policies.api.limits=1/1h" })
@AutoConfigureMockMvc
class MalformedRequestTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private MockMvcTester mvc;

	@Test
	void pathThatCannotBeDecodedShouldBeAnsweredWithBadRequestOverTomcat() throws IOException {
		// Tomcat refuses an invalid %-escape in a path segment, but lets one through in a path parameter
		for (String target : new String[] { "/api/hello;%zz", "/api;x=%zz/hello", "/elsewhere;%zz" }) {
			String response = rawGet(target);
			assertThat(response).as(target)
				.startsWith("HTTP/1.1 400 ")
				.containsIgnoringCase("Content-Type: application/problem+json")
				.contains("\"status\":400")
				.contains("The request path is not a valid URI path.");
		}
	}

	@Test
	void refusalOfAPathThatJavaNetUriRejectsShouldOmitTheInstance() {
		String client = Clients.newAddress();
		assertThat(getWithRequestUri("/api/a|b", client)).hasStatusOk();
		MvcTestResult refused = getWithRequestUri("/api/a|b", client);
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		Map<String, Object> problem = ProblemBodies.of(refused);
		assertThat(problem).containsEntry("status", 429).doesNotContainKey("instance");
	}

	private MvcTestResult getWithRequestUri(String requestUri, String client) {
		return this.mvc.get().uri("/api/x").with(Clients.from(client)).with((request) -> {
			request.setRequestURI(requestUri);
			return request;
		}).exchange();
	}

	private String rawGet(String target) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			OutputStream out = socket.getOutputStream();
			out.write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
