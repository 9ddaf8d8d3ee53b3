package io.github.ratelimit.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Sends the backend's commands straight to Lettuce's native async API, on the connection the application's
 * {@link LettuceConnectionFactory} gives (its shared connection unless sharing is off), with pre-encoded keys and
 * arguments and the script's precomputed SHA-1. A call waits on Lettuce's own future, at most the decision timeout.
 * While the connection is down (Lettuce reconnecting), a call fails at once with a
 * {@link RedisConnectionFailureException} rather than waiting in Lettuce's queue for the timeout, and being carried
 * out after its caller gave up; so does an asynchronous call while no connection is held yet (Redis could not be
 * reached at start-up), while one is opened on a thread of its own, never on the caller's (perhaps an event loop).
 * After every (re)connection Lettuce announces, the scripts are loaded again, so a
 * restarted, failed-over or new node never answers a decision with NOSCRIPT. A caller interrupted while it waits
 * gets a {@link CancellationException} (not a timeout) and keeps its interrupt flag.
 */
final class LettuceScriptExecutor implements ScriptExecutor {

	private static final Log logger = LogFactory.getLog(LettuceScriptExecutor.class);

	private final LettuceConnectionFactory connectionFactory;

	private final Duration timeout;

	private final Object lock = new Object();

	private volatile @Nullable Held held;

	private final AtomicBoolean connecting = new AtomicBoolean();

	private volatile List<LuaScript> scripts = List.of();

	private @Nullable Disposable reconnections;

	LettuceScriptExecutor(LettuceConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
	}

	@Override
	public void start(List<LuaScript> scripts) {
		this.scripts = List.copyOf(scripts);
		try {
			watchReconnections();
			CompletableFuture.allOf(loadScripts(connect())).get(Math.max(this.timeout.toMillis(), 5000), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			logger.warn("Could not load the rate limit scripts into Redis at start-up; decisions will load them: "
					+ describe(ex));
		}
	}

	private void watchReconnections() {
		synchronized (this.lock) {
			if (this.reconnections == null) {
				this.reconnections = this.connectionFactory.getRequiredNativeClient().getResources().eventBus().get()
					.filter(ConnectionActivatedEvent.class::isInstance)
					.subscribe((event) -> reloadScripts(), (error) -> logger.debug("Stopped watching reconnections", error));
			}
		}
	}

	@Override
	public List<Object> run(LuaScript script, byte[][] keys, byte[][] arguments) {
		return await(evaluate(script, keys, arguments), "EVALSHA");
	}

	@Override
	public CompletionStage<List<Object>> runAsync(LuaScript script, byte[][] keys, byte[][] arguments) {
		CompletionStage<List<Object>> call;
		try {
			call = evaluate(heldOrConnectInBackground(), script, keys, arguments);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		// the decision timeout is a Reactor timer (parallel scheduler), as on every reactive path. Cancelling a timer
		// when Redis answers may wait briefly for its delay queue's lock, on Lettuce's event loop: Reactor's own
		// BlockHound integration allows that wait for its timers, not for CompletableFuture.orTimeout's, and an error
		// thrown inside Lettuce's decoding loop stops it answering the connection's other commands
		return Mono.fromCompletionStage(call)
			.timeout(this.timeout, Schedulers.parallel())
			.onErrorMap((error) -> translate(unwrap(error), "EVALSHA"))
			.toFuture();
	}

	@Override
	public boolean blocking() {
		return false;
	}

	@Override
	public void delete(byte[][] keys) {
		await(connectedCommands("DEL").del(keys), "DEL");
	}

	@Override
	public void close() {
		synchronized (this.lock) {
			if (this.reconnections != null) {
				this.reconnections.dispose();
				this.reconnections = null;
			}
			Held current = this.held;
			this.held = null;
			if (current != null) {
				current.connection().close();
			}
		}
	}

	private CompletionStage<List<Object>> evaluate(LuaScript script, byte[][] keys, byte[][] arguments) {
		return evaluate(connect(), script, keys, arguments);
	}

	private CompletionStage<List<Object>> evaluate(Held held, LuaScript script, byte[][] keys, byte[][] arguments) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = connected(held, "EVALSHA");
		CompletionStage<List<Object>> call = commands.evalsha(script.sha1(), ScriptOutputType.MULTI, keys, arguments);
		return call.exceptionallyCompose((error) -> (unwrap(error) instanceof RedisNoScriptException)
				? commands.eval(script.bytes(), ScriptOutputType.MULTI, keys, arguments)
				: CompletableFuture.failedFuture(error));
	}

	/**
	 * Loads the scripts again after a (re)connection, without waiting: called on Lettuce's event thread, so it never
	 * opens a connection itself.
	 */
	private void reloadScripts() {
		Held current = this.held;
		if (current != null) {
			for (CompletableFuture<?> load : loadScripts(current)) {
				load.whenComplete((sha, error) -> {
					if (error != null) {
						logger.debug("Could not reload a rate limit script after a reconnection: " + describe(error));
					}
				});
			}
		}
	}

	private CompletableFuture<?>[] loadScripts(Held current) {
		List<LuaScript> toLoad = this.scripts;
		CompletableFuture<?>[] loads = new CompletableFuture<?>[toLoad.size()];
		for (int i = 0; i < toLoad.size(); i++) {
			// on a Cluster, Lettuce sends SCRIPT LOAD to every node
			loads[i] = current.commands().scriptLoad(toLoad.get(i).bytes()).toCompletableFuture();
		}
		return loads;
	}

	/**
	 * The commands of the held connection, if it is connected: a command sent while Lettuce reconnects would wait in
	 * its queue until the timeout, and then perhaps run after all.
	 */
	private RedisClusterAsyncCommands<byte[], byte[]> connectedCommands(String command) {
		return connected(connect(), command);
	}

	private static RedisClusterAsyncCommands<byte[], byte[]> connected(Held held, String command) {
		if (!held.stateful().isOpen()) {
			throw new RedisConnectionFailureException(
					"Redis is not connected (Lettuce is reconnecting); " + command + " not sent");
		}
		return held.commands();
	}

	/**
	 * The held connection, for a caller that must not block: when there is none yet (Redis could not be reached at
	 * start-up), one is opened on a thread of its own, one attempt at a time, and the call fails at once with a
	 * {@link RedisConnectionFailureException}, as while Lettuce reconnects, rather than waiting for the connection on
	 * an event loop.
	 */
	private Held heldOrConnectInBackground() {
		Held current = this.held;
		if (current != null) {
			return current;
		}
		if (this.connecting.compareAndSet(false, true)) {
			Thread connector = new Thread(() -> {
				try {
					loadScripts(connect());
				}
				catch (RuntimeException ex) {
					logger.debug("Could not connect to Redis for rate limit decisions: " + describe(ex));
				}
				finally {
					this.connecting.set(false);
				}
			}, "ratelimit-redis-connect");
			connector.setDaemon(true);
			connector.start();
		}
		throw new RedisConnectionFailureException("Redis is not connected (connecting in the background); EVALSHA not sent");
	}

	/**
	 * The held connection, opened on the calling thread when there is none yet.
	 */
	private Held connect() {
		Held held = this.held;
		if (held != null) {
			return held;
		}
		synchronized (this.lock) {
			Held current = this.held;
			if (current == null) {
				current = Held.of(this.connectionFactory.getConnection());
				this.held = current;
			}
			return current;
		}
	}

	private <T> T await(CompletionStage<T> call, String command) {
		CompletableFuture<T> future = call.toCompletableFuture();
		try {
			return future.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			future.cancel(false);
			CancellationException interrupted = new CancellationException(
					"Interrupted while waiting for Redis to answer " + command);
			interrupted.initCause(ex);
			throw interrupted;
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw timeout(command, ex);
		}
		catch (CancellationException ex) {
			throw translate(ex, command);
		}
		catch (ExecutionException ex) {
			throw translate(unwrap(ex), command);
		}
	}

	private RuntimeException translate(Throwable error, String command) {
		if (error instanceof TimeoutException) {
			return timeout(command, error);
		}
		if (error instanceof DataAccessException dataAccess) {
			return dataAccess;
		}
		if (error instanceof CancellationException) {
			// not our caller's interrupt (that is thrown as it is, above): Lettuce cancelled the command, as it does
			// to the commands in flight when its connection is reset
			return new RedisConnectionFailureException("Redis connection cancelled " + command + ": "
					+ error.getMessage(), error);
		}
		if (error instanceof IOException) {
			return new RedisConnectionFailureException("Redis connection lost during " + command + ": "
					+ error.getMessage(), error);
		}
		if (error instanceof RuntimeException runtime) {
			DataAccessException translated = this.connectionFactory.translateExceptionIfPossible(runtime);
			return (translated != null) ? translated : runtime;
		}
		return new RedisSystemException("Redis failed to answer " + command + ": " + error.getMessage(), error);
	}

	private QueryTimeoutException timeout(String command, Throwable cause) {
		return new QueryTimeoutException("Redis did not answer " + command + " within the rate limit timeout of "
				+ this.timeout.toMillis() + " ms", cause);
	}

	private static Throwable unwrap(Throwable error) {
		Throwable cause = error;
		while ((cause instanceof ExecutionException || cause instanceof CompletionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static String describe(Throwable error) {
		Throwable cause = unwrap(error);
		return cause.getClass().getSimpleName() + ": " + cause.getMessage();
	}

	/**
	 * The connection held for the backend's life, its native async commands, and the Lettuce connection they are sent
	 * on (asked whether it is open: the commands themselves no longer say so from Lettuce 7 on).
	 */
	private record Held(RedisConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
			StatefulConnection<byte[], byte[]> stateful) {

		/**
		 * Spring Data Redis' native connection is a Cluster's commands or else those of a standalone, Sentinel or
		 * master/replica connection: the two types that name their connection. {@code getStatefulConnection()} is
		 * deprecated since Lettuce 6.2, yet the one way to it that every Lettuce from 6.8 to 7.7 has (Spring Data
		 * Redis does not hand the connection out); the consumer project's build on each Spring Boot line would fail
		 * on a Lettuce without it.
		 */
		@SuppressWarnings({ "unchecked", "deprecation" })
		static Held of(RedisConnection connection) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			StatefulConnection<byte[], byte[]> stateful =
					(commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)
						? (StatefulConnection<byte[], byte[]>) cluster.getStatefulConnection()
						: ((RedisAsyncCommands<byte[], byte[]>) commands).getStatefulConnection();
			return new Held(connection, commands, stateful);
		}

	}

}
