package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Stream;

import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Servers of {@link FilterTestApplication} with an {@code ip} policy of {@value #LIMIT} requests an hour on
 * {@code /ip}, each started with forwarded-header settings of its own, and what requests with forged forwarding
 * headers get from them. Every request comes from 127.0.0.1; forged addresses are in 198.51.100.0/24.
 */
final class ForwardedHeadersServers implements AutoCloseable {

	static final int LIMIT = 5;

	static final int REQUESTS = 10;

	private final List<ConfigurableApplicationContext> started = new ArrayList<>();

	/**
	 * Starts a server of {@link FilterTestApplication} and {@code configurations}.
	 * @param configurations more configuration of the application
	 * @param properties its properties
	 * @return its port
	 */
	int start(List<Class<?>> configurations, String... properties) {
		String[] arguments = Stream.of(Stream.of(TestRedisProperties.values()),
				// no graceful shutdown: a raw connection still open made closing wait out its 30 s twice
				Stream.of("server.port=0", "server.shutdown=immediate", "spring.main.banner-mode=off",
						"ratelimit.policies.by-ip.paths=/ip",
						"ratelimit.policies.by-ip.limits=" + LIMIT + "/1h"),
				Stream.of(properties))
			.flatMap((stream) -> stream)
			.map((property) -> "--" + property)
			.toArray(String[]::new);
		Class<?>[] sources = Stream.concat(Stream.of(FilterTestApplication.class), configurations.stream())
			.toArray(Class<?>[]::new);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(sources).run(arguments);
		this.started.add(context);
		return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	/**
	 * Starts a server of {@link FilterTestApplication}.
	 * @param properties its properties
	 * @return its port
	 */
	int start(String... properties) {
		return start(List.of(), properties);
	}

	/** The i-th forged address. */
	static String forged(int i) {
		return "198.51.100." + (i + 1);
	}

	/**
	 * Sends {@link #REQUESTS} requests over raw connections, the i-th with the headers {@code headers} gives it, and
	 * counts the 200s.
	 */
	static int admitted(int port, IntFunction<String[]> headers) {
		int admitted = 0;
		for (int i = 0; i < REQUESTS; i++) {
			int status = WireResponse.get(port, "/ip", headers.apply(i)).status();
			assertThat(status).isIn(200, 429);
			admitted += (status == 200) ? 1 : 0;
		}
		return admitted;
	}

	@Override
	public void close() {
		this.started.forEach(ConfigurableApplicationContext::close);
	}

}
