package io.github.ratelimit.classpath;

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
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * One scenario's application, started as a user starts it (on a random port when it is a web application), and
 * plain HTTP calls to it.
 */
public final class RunningApp implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private RunningApp(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/**
	 * Starts an application; properties are passed as command-line arguments.
	 * @param application the application class
	 * @param properties {@code name=value} pairs
	 * @return the running application
	 */
	public static RunningApp start(Class<?> application, String... properties) {
		return new RunningApp(builder(application).run(arguments(properties)));
	}

	/**
	 * Starts an application that must fail to start, checks that no missing class is behind the failure, and
	 * returns its most specific cause.
	 * @param application the application class
	 * @param properties {@code name=value} pairs
	 * @return the root of the failure
	 */
	public static Throwable startUpFailure(Class<?> application, String... properties) {
		Throwable failure = catchThrowable(() -> builder(application).run(arguments(properties)).close());
		assertThat(failure).as("start-up failure").isNotNull();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			assertThat(cause).isNotInstanceOf(LinkageError.class);
		}
		return NestedExceptionUtils.getMostSpecificCause(failure);
	}

	private static SpringApplicationBuilder builder(Class<?> application) {
		return new SpringApplicationBuilder(application).main(application)
			.properties("server.port=0", "spring.main.banner-mode=off");
	}

	private static String[] arguments(String... properties) {
		List<String> arguments = new ArrayList<>();
		for (String property : properties) {
			arguments.add("--" + property);
		}
		return arguments.toArray(String[]::new);
	}

	public ConfigurableApplicationContext context() {
		return this.context;
	}

	/**
	 * A GET to the application's web server.
	 * @param path the path
	 * @return the response
	 */
	public HttpResponse<String> get(String path) {
		String port = this.context.getEnvironment().getRequiredProperty("local.server.port");
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		try {
			return this.http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The statuses of GETs to a path, in order.
	 * @param path the path
	 * @param times how many requests
	 * @return their statuses
	 */
	public List<Integer> statuses(String path, int times) {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < times; i++) {
			statuses.add(get(path).statusCode());
		}
		return statuses;
	}

	@Override
	public void close() {
		this.context.close();
	}

}
