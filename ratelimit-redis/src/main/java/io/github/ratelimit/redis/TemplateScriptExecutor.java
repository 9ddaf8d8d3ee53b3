package io.github.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Sends the backend's commands through Spring Data Redis' blocking connections, for connection factories other than
 * Lettuce's (Jedis). Calls block the caller (answering with a completed stage), and the client's own command timeout bounds them
 * ({@code spring.data.redis.timeout}); the decision timeout cannot cut them shorter.
 */
final class TemplateScriptExecutor implements ScriptExecutor {

	private static final Log logger = LogFactory.getLog(TemplateScriptExecutor.class);

	private final RedisConnectionFactory connectionFactory;

	TemplateScriptExecutor(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void start(List<LuaScript> scripts) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (LuaScript script : scripts) {
				connection.scriptingCommands().scriptLoad(script.bytes());
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not load the rate limit scripts into Redis at start-up; decisions will load them: "
					+ ex.getMessage());
		}
	}

	@Override
	public CompletionStage<List<Object>> run(LuaScript script, byte[][] keys, byte[][] arguments) {
		byte[][] keysAndArguments = new byte[keys.length + arguments.length][];
		System.arraycopy(keys, 0, keysAndArguments, 0, keys.length);
		System.arraycopy(arguments, 0, keysAndArguments, keys.length, arguments.length);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			try {
				return CompletableFuture.completedFuture(connection.scriptingCommands()
					.evalSha(script.sha1(), ReturnType.MULTI, keys.length, keysAndArguments));
			}
			catch (DataAccessException ex) {
				if (!isNoScript(ex)) {
					throw ex;
				}
				return CompletableFuture.completedFuture(connection.scriptingCommands()
					.eval(script.bytes(), ReturnType.MULTI, keys.length, keysAndArguments));
			}
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public boolean blocking() {
		return true;
	}

	@Override
	public CompletionStage<Void> delete(byte[][] keys) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.keyCommands().del(keys);
			return CompletableFuture.completedFuture(null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public void close() {
	}

	private static boolean isNoScript(Throwable error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT")) {
				return true;
			}
		}
		return false;
	}

}
