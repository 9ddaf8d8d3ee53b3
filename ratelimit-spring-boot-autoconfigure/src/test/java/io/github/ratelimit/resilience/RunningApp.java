package io.github.ratelimit.resilience;

import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.test.HttpProbe;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One instance of the test application on a random port, and plain HTTP calls to it.
 */
final class RunningApp implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final HttpProbe http;

	private RunningApp(ConfigurableApplicationContext context) {
		this.context = context;
		this.http = new HttpProbe(Integer.parseInt(context.getEnvironment().getProperty("local.server.port")));
	}

	/**
	 * Starts an instance with the production default {@code ratelimit.timeout} of 100 ms, unless a property says
	 * otherwise. Properties are passed as command-line arguments, which win over any configuration file.
	 */
	static RunningApp start(int redisPort, String... properties) {
		return start(List.of("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redisPort), properties);
	}

	/**
	 * Starts an instance on the Redis that {@code redis} describes ({@code spring.data.redis.*} properties, such as
	 * a Sentinel or Cluster configuration), otherwise as {@link #start(int, String...)} does.
	 */
	static RunningApp start(List<String> redis, String... properties) {
		Map<String, String> all = new LinkedHashMap<>();
		for (String property : redis) {
			put(all, property);
		}
		for (String property : List.of("server.port=0", "spring.data.redis.timeout=2s",
				"spring.data.redis.connect-timeout=500ms", "ratelimit.timeout=100ms",
				"management.endpoints.web.exposure.include=health,ratelimits,metrics",
				"management.endpoint.health.show-details=always", "spring.main.banner-mode=off")) {
			put(all, property);
		}
		for (String property : properties) {
			put(all, property);
		}
		String[] arguments = all.entrySet().stream()
			.map((entry) -> "--" + entry.getKey() + "=" + entry.getValue())
			.toArray(String[]::new);
		return new RunningApp(new SpringApplicationBuilder(ResilienceTestApplication.class).run(arguments));
	}

	private static void put(Map<String, String> properties, String property) {
		int equals = property.indexOf('=');
		properties.put(property.substring(0, equals), property.substring(equals + 1));
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	HttpResponse<String> get(String path, String... headers) {
		return this.http.get(path, headers);
	}

	HttpResponse<String> post(String path, String json) {
		return this.http.post(path, json);
	}

	HttpResponse<String> delete(String path) {
		return this.http.delete(path);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
