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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Function;

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

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Sends the backend's commands straight to Lettuce's native async API, on the connection the application's
 * {@link LettuceConnectionFactory} gives (its shared connection unless sharing is off), with pre-encoded keys and
 * arguments and the script's precomputed SHA-1. A call never blocks its caller: it answers with a stage that
 * completes when Redis answers or, past the decision timeout, with a {@link QueryTimeoutException}, timed by the one
 * {@link DecisionTimer} of every call. While the connection is down (Lettuce reconnecting), a call fails at once with
 * a {@link RedisConnectionFailureException} rather than waiting in Lettuce's queue for the timeout, and being carried
 * out after its caller gave up; so does a call while no connection is held yet (Redis could not be reached at
 * start-up), while one is opened on a thread of its own, never on the caller's (perhaps an event loop).
 * After every (re)connection Lettuce announces, the scripts are loaded again, so a
 * restarted, failed-over or new node never answers a decision with NOSCRIPT.
 */
final class LettuceScriptExecutor implements ScriptExecutor {

	private static final Log logger = LogFactory.getLog(LettuceScriptExecutor.class);

	private final LettuceConnectionFactory connectionFactory;

	private final Duration timeout;

	private final DecisionTimer timer = DecisionTimer.open();

	private final Object lock = new Object();

	private volatile @Nullable Held held;

	private final AtomicReference<@Nullable CompletableFuture<Held>> connecting = new AtomicReference<>();

	private volatile boolean attempted;

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
	public CompletionStage<List<Object>> run(LuaScript script, byte[][] keys, byte[][] arguments) {
		return call("EVALSHA", (commands) -> commands.evalsha(script.sha1(), ScriptOutputType.MULTI, keys, arguments),
				(commands) -> commands.eval(script.bytes(), ScriptOutputType.MULTI, keys, arguments));
	}

	@Override
	public boolean blocking() {
		return false;
	}

	@Override
	public CompletionStage<Void> delete(byte[][] keys) {
		return call("DEL", (commands) -> commands.del(keys), null).thenApply((deleted) -> null);
	}

	@Override
	public void close() {
		this.timer.close();
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

	/**
	 * Sends a command on the held connection, bounded by the decision timeout. Before any connection was attempted
	 * (a backend used without being started), the command waits for the first, opened on a thread of its own.
	 * @param command the command's name, for errors
	 * @param send sends it
	 * @param noScript sends it again as a script's source when Redis answers NOSCRIPT, or {@code null}
	 * @return the reply when it comes, or the failure translated into a {@link DataAccessException}
	 */
	private <T> CompletionStage<T> call(String command,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> send,
			@Nullable Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> noScript) {
		Call<T> call = new Call<>(command, send, noScript);
		call.timeout = this.timer.schedule(call, this.timeout.toNanos());
		Held current = this.held;
		if (current != null) {
			call.sendOn(current);
			return call;
		}
		boolean first = !this.attempted;
		CompletableFuture<Held> connection = connectInBackground();
		if (first) {
			connection.whenComplete((held, error) -> {
				if (error != null) {
					call.accept(null, error);
				}
				else {
					call.sendOn(held);
				}
			});
		}
		else {
			call.accept(null, new RedisConnectionFailureException(
					"Redis is not connected (connecting in the background); " + command + " not sent"));
		}
		return call;
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

	private static RedisClusterAsyncCommands<byte[], byte[]> connected(Held held, String command) {
		if (!held.stateful().isOpen()) {
			throw new RedisConnectionFailureException(
					"Redis is not connected (Lettuce is reconnecting); " + command + " not sent");
		}
		return held.commands();
	}

	/**
	 * Opens the connection on a thread of its own, one attempt at a time, for a caller that must not block (perhaps on
	 * an event loop) while none is held: Redis could not be reached at start-up, or the backend was not started.
	 * @return the attempt in progress
	 */
	private CompletableFuture<Held> connectInBackground() {
		CompletableFuture<Held> attempt = new CompletableFuture<>();
		CompletableFuture<Held> inProgress = this.connecting.compareAndExchange(null, attempt);
		if (inProgress != null) {
			return inProgress;
		}
		Thread connector = new Thread(() -> {
			try {
				Held connected = connect();
				loadScripts(connected);
				attempt.complete(connected);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not connect to Redis for rate limit decisions: " + describe(ex));
				attempt.completeExceptionally(ex);
			}
			finally {
				this.connecting.set(null);
			}
		}, "ratelimit-redis-connect");
		connector.setDaemon(true);
		connector.start();
		return attempt;
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
			try {
				Held current = this.held;
				if (current == null) {
					current = Held.of(this.connectionFactory.getConnection());
					this.held = current;
				}
				return current;
			}
			finally {
				this.attempted = true;
			}
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
			// Lettuce cancelled the command, as it does to the commands in flight when its connection is reset
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
		return new QueryTimeoutException(timedOut(command), cause);
	}

	private String timedOut(String command) {
		return "Redis did not answer " + command + " within the rate limit timeout of " + this.timeout.toMillis()
				+ " ms";
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
	 * One call: the answer its caller gets, the callback of Lettuce's reply and the timeout's task in one object.
	 * Whichever comes first completes the answer: Redis' reply (or, on NOSCRIPT, the reply to the script's source),
	 * its failure, or the timeout, which counts the time the process ran ({@link DecisionTimer#schedule}). A reply
	 * that comes after the timeout completes the timeout's late reply ({@link LateReplyTimeoutException}).
	 */
	private final class Call<T> extends CompletableFuture<T>
			implements BiConsumer<T, Throwable>, DecisionTimer.Timed {

		private final String command;

		private final Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> send;

		private @Nullable Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> noScript;

		private @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

		private volatile DecisionTimer.@Nullable Pending timeout;

		private volatile @Nullable CompletableFuture<T> lateReply;

		Call(String command, Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> send,
				@Nullable Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> noScript) {
			this.command = command;
			this.send = send;
			this.noScript = noScript;
		}

		void sendOn(Held held) {
			try {
				this.commands = connected(held, this.command);
				this.send.apply(this.commands).whenComplete(this);
			}
			catch (RuntimeException ex) {
				accept(null, ex);
			}
		}

		@Override
		public void accept(@Nullable T reply, @Nullable Throwable error) {
			if (error == null) {
				cancelTimeout();
				if (!complete(reply)) {
					CompletableFuture<T> late = this.lateReply;
					if (late != null) {
						late.complete(reply);
					}
				}
				return;
			}
			Throwable cause = unwrap(error);
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> retry = this.noScript;
			if (retry != null && this.commands != null && cause instanceof RedisNoScriptException && !isDone()) {
				this.noScript = null;
				try {
					retry.apply(this.commands).whenComplete(this);
					return;
				}
				catch (RuntimeException ex) {
					cause = ex;
				}
			}
			cancelTimeout();
			RuntimeException failure = translate(cause, this.command);
			if (!completeExceptionally(failure)) {
				CompletableFuture<T> late = this.lateReply;
				if (late != null) {
					late.completeExceptionally(failure);
				}
			}
		}

		@Override
		public void timeOut() {
			CompletableFuture<T> late = new CompletableFuture<>();
			this.lateReply = late;
			completeExceptionally(new LateReplyTimeoutException(timedOut(this.command), late));
		}

		private void cancelTimeout() {
			DecisionTimer.Pending pending = this.timeout;
			if (pending != null) {
				pending.cancel();
			}
		}

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
