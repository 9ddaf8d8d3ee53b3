package io.github.ratelimit.resilience;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One instance of the test application on a random port, and plain HTTP calls to it.
 */
final class RunningApp implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final int port;

	private RunningApp(ConfigurableApplicationContext context) {
		this.context = context;
		this.port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
	}

	static RunningApp start(int redisPort, String... properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redisPort, "spring.data.redis.timeout=2s",
				"spring.data.redis.connect-timeout=500ms",
				"management.endpoints.web.exposure.include=health,ratelimits,metrics",
				"management.endpoint.health.show-details=always", "spring.main.banner-mode=off"));
		all.addAll(List.of(properties));
		return new RunningApp(new SpringApplicationBuilder(ResilienceTestApplication.class)
			.properties(all.toArray(String[]::new))
			.run());
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	HttpResponse<String> get(String path) {
		try {
			return this.client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
				.timeout(Duration.ofSeconds(30))
				.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.context.close();
	}

}
