package io.github.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;

/**
 * One policy's script call exactly as {@link RedisRateLimiterBackend} sends it (the script and its SHA-1 from
 * {@link LuaScript}, the arguments from {@link LimitArguments}, the keys from {@link StorageKeys}),
 * for the benchmarks' contenders that call Redis without our client code. Nothing here encodes a script argument
 * itself, so the contenders follow whatever the backend sends.
 */
public final class OurScript {

	private final LuaScript script;

	private final StorageKeys keys;

	private final byte[][] arguments;

	/**
	 * The call of one policy's decisions taking one permit each.
	 * @param keyPrefix the namespace of the keys, as given to the backend
	 * @param policy the policy
	 */
	public OurScript(String keyPrefix, Policy policy) {
		this.script = LuaScript.of(policy.algorithm());
		this.keys = new StorageKeys(keyPrefix, policy);
		this.arguments = new LimitArguments(policy).of(1, true);
	}

	/**
	 * The script's SHA-1, as EVALSHA names it.
	 * @return the SHA-1 in lower-case hexadecimal
	 */
	public String sha1() {
		return this.script.sha1();
	}

	/**
	 * The script's source, as SCRIPT LOAD takes it.
	 * @return the UTF-8 bytes of the source
	 */
	public byte[] source() {
		return this.script.bytes().clone();
	}

	/**
	 * The arguments ({@code ARGV}) of a decision taking one permit.
	 * @return the encoded arguments, a fresh array
	 */
	public byte[][] arguments() {
		byte[][] copy = new byte[this.arguments.length][];
		for (int i = 0; i < copy.length; i++) {
			copy[i] = this.arguments[i].clone();
		}
		return copy;
	}

	/**
	 * The arguments as a command line passes them, for a tool such as {@code redis-benchmark}.
	 * @return one string per argument
	 * @throws IllegalStateException when an argument is not printable ASCII, which no command line can carry
	 */
	public List<String> argumentText() {
		List<String> text = new ArrayList<>(this.arguments.length);
		for (byte[] argument : this.arguments) {
			for (byte b : argument) {
				if (b < 0x21 || b > 0x7e) {
					throw new IllegalStateException("A script argument is not printable ASCII, so a command line "
							+ "cannot send it: " + new String(argument, StandardCharsets.ISO_8859_1));
				}
			}
			text.add(new String(argument, StandardCharsets.US_ASCII));
		}
		return text;
	}

	/**
	 * The keys ({@code KEYS}) of one client's decision: the client's key part followed by each limit's index.
	 * @param client the client's key
	 * @return one key per limit of the policy
	 */
	public List<String> keys(String client) {
		return this.keys.keys(client);
	}

	/**
	 * The keys of one client's decision, encoded as the backend sends them.
	 * @param client the client's key
	 * @return one key per limit of the policy
	 */
	public byte[][] encodedKeys(String client) {
		return this.keys.encodedKeys(client);
	}

}
