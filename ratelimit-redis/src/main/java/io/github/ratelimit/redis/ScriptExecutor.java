package io.github.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Runs the backend's Redis commands, each bounded by the decision timeout. One implementation per kind of client:
 * Lettuce's native async API where the application's connection factory is Lettuce's, Spring Data Redis' blocking
 * connections otherwise.
 */
interface ScriptExecutor extends AutoCloseable {

	/**
	 * Connects (on a Cluster, learning its topology) and loads every script on every node, so that no decision pays
	 * for either; where the client tells of reconnections, loads them again after each.
	 * @param scripts the scripts
	 */
	void start(List<LuaScript> scripts);

	/**
	 * Runs a script by its SHA-1, sending its source instead when Redis does not know it (NOSCRIPT), and waits for
	 * the reply at most the decision timeout.
	 * @param script the script
	 * @param keys its keys
	 * @param arguments its arguments
	 * @return the reply, a list of integers
	 */
	List<Object> run(LuaScript script, byte[][] keys, byte[][] arguments);

	/**
	 * Runs a script like {@link #run}, without blocking the calling thread where the client allows it.
	 * @param script the script
	 * @param keys its keys
	 * @param arguments its arguments
	 * @return the reply when it comes, or the failure (a timeout past the decision timeout)
	 */
	CompletionStage<List<Object>> runAsync(LuaScript script, byte[][] keys, byte[][] arguments);

	/**
	 * Whether {@link #runAsync} blocks the calling thread until Redis answers (a blocking client).
	 * @return whether it blocks
	 */
	boolean blocking();

	/**
	 * Deletes keys.
	 * @param keys the keys, all in one hash slot
	 */
	void delete(byte[][] keys);

	@Override
	void close();

}
