package io.github.ratelimit.sample.webflux;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.ratelimit.test.TestRedis;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatusCode;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * One instance of the WebFlux sample, started as its own application context on a random port, as another server of
 * the same service would be.
 */
final class RunningSample implements AutoCloseable {

	/** Longer than any decision of a test may take on a busy machine (decisions wait up to 10 s for Redis). */
	private static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(60);

	private final ConfigurableApplicationContext context;

	private final WebTestClient client;

	private RunningSample(ConfigurableApplicationContext context) {
		this.context = context;
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		this.client = client(port);
	}

	/**
	 * Starts an instance on the test Redis.
	 * @param properties {@code name=value} pairs, each replacing the default of that name
	 * @return the running instance
	 */
	static RunningSample start(String... properties) {
		return new RunningSample(new SpringApplicationBuilder(SampleWebFluxApplication.class)
			.main(SampleWebFluxApplication.class)
			.run(arguments(properties)));
	}

	/**
	 * The command line of an instance: a random port, the test Redis, no embedded Redis, the generous decision
	 * timeout of tests that are not about timeouts ({@link TestRedis#TIMEOUT}: a call slowed by a busy machine must
	 * not fail open and break an exact count), then the given properties.
	 * @param properties {@code name=value} pairs, each replacing the default of that name
	 * @return the arguments
	 */
	static String[] arguments(String... properties) {
		TestRedis redis = TestRedis.get();
		Map<String, String> values = new LinkedHashMap<>();
		values.put("server.port", "0");
		values.put("spring.data.redis.host", redis.host());
		values.put("spring.data.redis.port", Integer.toString(redis.port()));
		values.put("sample.embedded-redis", "never");
		values.put("ratelimit.timeout", TestRedis.TIMEOUT.toMillis() + "ms");
		for (String property : properties) {
			int equals = property.indexOf('=');
			values.put(property.substring(0, equals), property.substring(equals + 1));
		}
		return values.entrySet().stream().map((entry) -> "--" + entry.getKey() + "=" + entry.getValue())
			.toArray(String[]::new);
	}

	/**
	 * A client of a sample listening on a local port.
	 * @param port the port
	 * @return the client
	 */
	static WebTestClient client(int port) {
		return WebTestClient.bindToServer().baseUrl("http://localhost:" + port).responseTimeout(RESPONSE_TIMEOUT)
			.build();
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	WebTestClient client() {
		return this.client;
	}

	/**
	 * The status of a GET request.
	 * @param path the path
	 * @param headers header name and value pairs
	 * @return the status
	 */
	HttpStatusCode get(String path, String... headers) {
		return this.client.get().uri(path).headers((httpHeaders) -> {
			for (int i = 0; i < headers.length; i += 2) {
				httpHeaders.add(headers[i], headers[i + 1]);
			}
		}).exchange().returnResult(Void.class).getStatus();
	}

	@Override
	public void close() {
		this.context.close();
	}

}
