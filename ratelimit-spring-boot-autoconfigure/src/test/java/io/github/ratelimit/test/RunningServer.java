package io.github.ratelimit.test;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One application started as its own context on a random port, as another server of the same service would be:
 * its own enforcer, connection factory and web server.
 */
public final class RunningServer implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final int port;

	private RunningServer(ConfigurableApplicationContext context) {
		this.context = context;
		this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	/**
	 * Starts a server on the test Redis, with the generous decision timeout of tests that are not about timeouts.
	 * @param type the web stack: {@link WebApplicationType#SERVLET} (Tomcat) or {@link WebApplicationType#REACTIVE}
	 * (Netty)
	 * @param sources the application's configuration classes
	 * @param properties {@code name=value} pairs, each replacing the default of that name
	 * @return the running server
	 */
	public static RunningServer start(WebApplicationType type, Class<?>[] sources, String... properties) {
		TestRedis redis = TestRedis.get();
		Map<String, String> values = new LinkedHashMap<>();
		values.put("server.port", "0");
		values.put("spring.main.banner-mode", "off");
		values.put("spring.data.redis.host", redis.host());
		values.put("spring.data.redis.port", Integer.toString(redis.port()));
		values.put("ratelimit.timeout", TestRedis.TIMEOUT.toMillis() + "ms");
		for (String property : properties) {
			int equals = property.indexOf('=');
			values.put(property.substring(0, equals), property.substring(equals + 1));
		}
		String[] arguments = values.entrySet().stream()
			.map((entry) -> "--" + entry.getKey() + "=" + entry.getValue())
			.toArray(String[]::new);
		return new RunningServer(new SpringApplicationBuilder(sources).web(type).run(arguments));
	}

	/**
	 * The port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * The name of the server's web server class, such as {@code NettyWebServer}.
	 * @return the simple class name
	 */
	public String webServer() {
		return ((WebServerApplicationContext) this.context).getWebServer().getClass().getSimpleName();
	}

	/**
	 * A bean of the server's context.
	 * @param <T> the bean's type
	 * @param type the bean's type
	 * @return the bean
	 */
	public <T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
