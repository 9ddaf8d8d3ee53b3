package io.github.ratelimit.test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.DisconnectedEvent;
import io.lettuce.core.resource.ClientResources;

/**
 * Redis going down under an application: its server stopped, and the application's Lettuce aware of it. Until
 * Lettuce has seen its connection closed, a command sent on it waits in Lettuce's queue for the command timeout; from
 * then on it fails at once.
 */
public final class RedisOutage {

	private RedisOutage() {
	}

	/**
	 * Stops the server and waits until the client of these resources has seen its connection closed.
	 * @param redis the server
	 * @param client the resources of the application's Lettuce client, connected to the server
	 */
	public static void stop(EmbeddedRedis redis, ClientResources client)
			throws InterruptedException, ExecutionException, TimeoutException {
		CompletableFuture<Event> disconnected = client.eventBus()
			.get()
			.filter(DisconnectedEvent.class::isInstance)
			.next()
			.toFuture();
		redis.stop();
		disconnected.get(30, TimeUnit.SECONDS);
	}

}
