package io.github.ratelimit.sample.redis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.embedded.RedisServer;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Brings a sample application its own Redis: with {@code sample.embedded-redis=auto} (the default), when the
 * configured Redis is a standalone server on this machine and nothing listens on its port, starts an embedded Redis
 * server process there before the application uses Redis, and stops it when the application context closes.
 * {@code never} turns it off; the build's AOT processing never starts one. Registered in {@code META-INF/spring.factories}, so it runs before any bean exists, in
 * every sample that has this module on its class path.
 */
public class EmbeddedRedisListener implements SmartApplicationListener {

	private static final Log logger = LogFactory.getLog(EmbeddedRedisListener.class);

	private static final Set<String> LOCAL_HOSTS = Set.of("localhost", "127.0.0.1");

	private @Nullable RedisServer server;

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationFailedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public synchronized void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			startIfNeeded(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared && this.server != null) {
			// a disposable of the bean factory, not a ContextClosedEvent (published first): registered before any bean
			// exists, so destroyed last, after the web server has drained and the Redis clients have stopped; not a
			// bean definition, which AOT processing would have to generate code for
			((GenericApplicationContext) prepared.getApplicationContext()).getDefaultListableBeanFactory()
				.registerDisposableBean("embeddedRedisServerShutdown", this::stop);
		}
		else if (event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	private void startIfNeeded(ConfigurableEnvironment environment) {
		String mode = environment.getProperty("sample.embedded-redis", "auto");
		if (!"auto".equals(mode)) {
			if (!"never".equals(mode)) {
				throw new IllegalStateException(
						"Invalid sample.embedded-redis '" + mode + "': use 'auto' (the default) or 'never'");
			}
			return;
		}
		if (Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING)) {
			// the build's AOT processing prepares the context without using Redis
			return;
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		if (!LOCAL_HOSTS.contains(host) || configuredElsewhere(environment) || listening(port)) {
			return;
		}
		this.server = start(port);
		logger.info("Started an embedded Redis server on 127.0.0.1:" + port
				+ " (nothing was listening there; set sample.embedded-redis=never to turn this off)");
	}

	/** A URL, Sentinel or Cluster configuration is used instead of host and port: never replace those. */
	private static boolean configuredElsewhere(ConfigurableEnvironment environment) {
		return environment.containsProperty("spring.data.redis.url")
				|| environment.containsProperty("spring.data.redis.sentinel.master")
				|| environment.containsProperty("spring.data.redis.cluster.nodes");
	}

	private static boolean listening(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static RedisServer start(int port) {
		try {
			RedisServer server = RedisServer.newRedisServer()
				.port(port)
				.bind("127.0.0.1")
				.setting("save \"\"")
				.setting("appendonly no")
				.build();
			server.start();
			return server;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start an embedded Redis server on port " + port
					+ "; start Redis yourself or set sample.embedded-redis=never and configure spring.data.redis.*", ex);
		}
	}

	private synchronized void stop() {
		RedisServer server = this.server;
		if (server == null) {
			return;
		}
		this.server = null;
		try {
			server.stop();
			logger.info("Stopped the embedded Redis server on port " + server.ports().get(0));
		}
		catch (IOException ex) {
			logger.warn("Could not stop the embedded Redis server on port " + server.ports().get(0), ex);
		}
	}

}
