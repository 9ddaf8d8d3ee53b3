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
	 * Runs a script by its SHA-1, sending its source instead when Redis does not know it (NOSCRIPT), without
	 * blocking the calling thread where the client allows it.
	 * @param script the script
	 * @param keys its keys
	 * @param arguments its arguments
	 * @return the reply, a list of integers, when it comes; or the failure (a timeout past the decision timeout)
	 */
	CompletionStage<List<Object>> run(LuaScript script, byte[][] keys, byte[][] arguments);

	/**
	 * Whether {@link #run} blocks the calling thread until Redis answers (a blocking client).
	 * @return whether it blocks
	 */
	boolean blocking();

	/**
	 * Deletes keys, like {@link #run}.
	 * @param keys the keys, all in one hash slot
	 * @return done when deleted; or the failure
	 */
	CompletionStage<Void> delete(byte[][] keys);

	@Override
	void close();

}
