package io.github.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.core.Algorithm;

/**
 * The Lua script of one algorithm, {@code common.lua} followed by {@code <algorithm>.lua}, or the fixed window's
 * return of leased permits ({@code fixed-window-return.lua}), read once, with its SHA-1 computed here so that no call
 * has to compute or look it up.
 */
final class LuaScript {

	private static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);

	static {
		for (Algorithm algorithm : Algorithm.values()) {
			SCRIPTS.put(algorithm, new LuaScript(algorithm, read("common.lua") + "\n" + read(algorithm.id() + ".lua")));
		}
	}

	private static final LuaScript FIXED_WINDOW_RETURN = new LuaScript(Algorithm.FIXED_WINDOW,
			read("fixed-window-return.lua"));

	private final Algorithm algorithm;

	private final String source;

	private final byte[] bytes;

	private final String sha1;

	private LuaScript(Algorithm algorithm, String source) {
		this.algorithm = algorithm;
		this.source = source;
		this.bytes = source.getBytes(StandardCharsets.UTF_8);
		this.sha1 = HexFormat.of().formatHex(sha1(this.bytes));
	}

	/**
	 * The script of an algorithm.
	 * @param algorithm the algorithm
	 * @return its script
	 */
	static LuaScript of(Algorithm algorithm) {
		return SCRIPTS.get(algorithm);
	}

	/**
	 * The script that gives a fixed window's leased permits back.
	 * @return the script
	 */
	static LuaScript fixedWindowReturn() {
		return FIXED_WINDOW_RETURN;
	}

	/**
	 * Every script: each algorithm's and the fixed window's return.
	 * @return the scripts
	 */
	static List<LuaScript> all() {
		List<LuaScript> all = new ArrayList<>(SCRIPTS.values());
		all.add(FIXED_WINDOW_RETURN);
		return List.copyOf(all);
	}

	Algorithm algorithm() {
		return this.algorithm;
	}

	String source() {
		return this.source;
	}

	byte[] bytes() {
		return this.bytes;
	}

	/**
	 * The SHA-1 of the source in lower-case hexadecimal, as Redis names the script in EVALSHA.
	 * @return the SHA-1
	 */
	String sha1() {
		return this.sha1;
	}

	private static String read(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Could not find the Lua script " + name + " beside "
						+ LuaScript.class.getName());
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the Lua script " + name, ex);
		}
	}

	private static byte[] sha1(byte[] bytes) {
		try {
			return MessageDigest.getInstance("SHA-1").digest(bytes);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every Java platform", ex);
		}
	}

}
