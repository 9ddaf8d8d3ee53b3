package io.github.ratelimit.refresh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import io.github.ratelimit.test.HttpProbe;
import io.github.ratelimit.test.TestRedisProperties;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.context.refresh.ContextRefresher;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The test application on a random port, its {@code ratelimit.*} configuration in a file that a refresh reloads, as
 * a configuration server or a mounted ConfigMap would change it.
 */
final class RefreshableApp implements AutoCloseable {

	private final Path configuration;

	private final String backend;

	private final ConfigurableApplicationContext context;

	private final HttpProbe http;

	private final int port;

	private RefreshableApp(Path configuration, String backend, ConfigurableApplicationContext context) {
		this.configuration = configuration;
		this.backend = backend;
		this.context = context;
		this.port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
		this.http = new HttpProbe(this.port);
	}

	/**
	 * Starts the application on the in-memory backend with a configuration file of these lines.
	 */
	static RefreshableApp start(Path directory, WebApplicationType web, String... configuration) {
		return start(directory, web, List.of("--spring.autoconfigure.exclude="
				+ "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration"),
				"ratelimit.backend=in-memory", configuration);
	}

	/**
	 * Starts the application on the test Redis, under a key prefix of its own, with a configuration file of these
	 * lines.
	 */
	static RefreshableApp startOnRedis(Path directory, WebApplicationType web, String... configuration) {
		return start(directory, web,
				Arrays.stream(TestRedisProperties.values()).map((property) -> "--" + property).toList(), "",
				configuration);
	}

	private static RefreshableApp start(Path directory, WebApplicationType web, List<String> backendArguments,
			String backend, String... configuration) {
		Path file = directory.resolve("ratelimit.properties");
		write(file, backend, configuration);
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
				"--spring.config.import=file:" + file, "--management.endpoints.web.exposure.include=refresh"));
		arguments.addAll(backendArguments);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(RefreshTestApplication.class).web(web)
			.run(arguments.toArray(String[]::new));
		return new RefreshableApp(file, backend, context);
	}

	/**
	 * Replaces the configuration file and refreshes the application's configuration as Spring Cloud does.
	 * @return the properties that changed
	 */
	Set<String> reconfigure(String... configuration) {
		write(configuration);
		return this.context.getBean(ContextRefresher.class).refresh();
	}

	/**
	 * Replaces the configuration file, for a refresh through the endpoint.
	 */
	void write(String... configuration) {
		write(this.configuration, this.backend, configuration);
	}

	private static void write(Path file, String backend, String... lines) {
		try {
			Files.writeString(file, backend + "\n" + String.join("\n", lines) + "\n");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	HttpResponse<String> get(String path, String... headers) {
		return this.http.get(path, headers);
	}

	HttpResponse<String> post(String path) throws IOException, InterruptedException {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
				.POST(HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
