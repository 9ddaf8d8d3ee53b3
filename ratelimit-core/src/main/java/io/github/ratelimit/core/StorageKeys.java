package io.github.ratelimit.core;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * The storage key layout, {@code <prefix>:<policy>:<fingerprint>:{<client>}:<limit index>}, shared by every backend;
 * a plan of a policy writes {@code <plan>.<fingerprint>} in place of the fingerprint. Plan names hold no ':' or '.',
 * and a fingerprint is eight hexadecimal digits, so no policy's keys can be another's plan's.
 * <p>
 * The client part sits in a Redis Cluster hash tag, so every key of one decision lives in one slot. It is used as
 * given when it is at most 64 bytes of UTF-8 without '{' or '}'; otherwise it is replaced by {@code #} and its
 * SHA-256 in hexadecimal (65 bytes, so no client part used as given can look like one); a client holding an unpaired
 * surrogate, which UTF-8 cannot encode, is always replaced so, hashed from its code points. Policy names and the prefix
 * hold no braces either, so keys of different (policy, client) pairs never collide. The fingerprint changes with the
 * policy's algorithm and limits, so changed limits start from fresh state.
 */
public final class StorageKeys {

	/** The longest client part, in UTF-8 bytes, kept as given. */
	public static final int MAX_CLIENT_BYTES = 64;

	/** The bytes of a client's SHA-256 that {@link #hashed(String)} keeps: 128 bits. */
	private static final int HASHED_BYTES = 16;

	private final String base;

	private final int limitCount;

	private final byte[][] limitSuffixes;

	/**
	 * Creates the layout of one policy's keys.
	 * @param prefix the namespace of every key, such as {@code ratelimit}; not blank, without '{' or '}'
	 * @param policy the policy
	 */
	public StorageKeys(String prefix, Policy policy) {
		this.base = checkPrefix(prefix) + ":" + policy.name() + ":"
				+ ((policy.plan() != null) ? policy.plan() + "." : "") + policy.fingerprint() + ":{";
		this.limitCount = policy.limits().size();
		this.limitSuffixes = new byte[this.limitCount][];
		for (int i = 0; i < this.limitCount; i++) {
			this.limitSuffixes[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
		}
	}

	/**
	 * The keys of one client, one per limit of the policy, in the policy's order.
	 * @param client the client's key
	 * @return the storage keys
	 */
	public List<String> keys(String client) {
		String clientBase = clientKey(client);
		List<String> keys = new ArrayList<>(this.limitCount);
		for (int i = 0; i < this.limitCount; i++) {
			keys.add(clientBase + i);
		}
		return keys;
	}

	/**
	 * The keys of one client as UTF-8 bytes, what a Redis client sends: the same keys as {@link #keys(String)}, the
	 * client part encoded once.
	 * @param client the client's key
	 * @return the encoded storage keys, one per limit, in the policy's order
	 */
	public byte[][] encodedKeys(String client) {
		byte[] base = clientKey(client).getBytes(StandardCharsets.UTF_8);
		byte[][] encoded = new byte[this.limitCount][];
		for (int i = 0; i < this.limitCount; i++) {
			byte[] suffix = this.limitSuffixes[i];
			byte[] key = new byte[base.length + suffix.length];
			System.arraycopy(base, 0, key, 0, base.length);
			System.arraycopy(suffix, 0, key, base.length, suffix.length);
			encoded[i] = key;
		}
		return encoded;
	}

	/**
	 * The part every key of one client shares, {@code <prefix>:<policy>:<fingerprint>:{<client>}:}: one client's
	 * identity under the policy, whatever its number of limits.
	 * @param client the client's key
	 * @return the shared part of its keys
	 */
	public String clientKey(String client) {
		return this.base + clientPart(client) + "}:";
	}

	/**
	 * Checks a key prefix.
	 * @param prefix the prefix
	 * @return the prefix
	 * @throws IllegalArgumentException when it is blank or holds '{' or '}'
	 */
	public static String checkPrefix(String prefix) {
		if (prefix == null || prefix.isBlank()) {
			throw new IllegalArgumentException("Key prefix must not be blank");
		}
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Key prefix '" + prefix + "' must not contain '{' or '}'");
		}
		return prefix;
	}

	/**
	 * The client part of a key as stored: the client itself, or {@code #<sha-256>} when it is long or holds braces.
	 * @param client the client's key
	 * @return the part stored in the hash tag
	 */
	public static String clientPart(String client) {
		if (hasUnpairedSurrogate(client)) {
			// UTF-8 would write each as '?': hashing every code point as it is keeps such clients apart
			return "#" + HexFormat.of().formatHex(sha256(codePointBytes(client)));
		}
		byte[] bytes = client.getBytes(StandardCharsets.UTF_8);
		if (bytes.length <= MAX_CLIENT_BYTES && client.indexOf('{') < 0 && client.indexOf('}') < 0) {
			return client;
		}
		return "#" + HexFormat.of().formatHex(sha256(bytes));
	}

	/**
	 * A client's key in the form that stands for it wherever the key may be a secret (an API key): {@code #} and the
	 * first 128 bits of its SHA-256 (over its code points, as {@link #clientPart(String)} hashes), in unpadded
	 * base64url. The same key always gives the same 23 characters, none of them ':', '{' or '}', so the form is kept
	 * as given in a storage key; two keys share one only by a collision of 128 bits, which no number of clients comes
	 * near, and the key cannot be read back from it.
	 * @param client the client's key
	 * @return its hashed form
	 */
	public static String hashed(String client) {
		byte[] digest = sha256(hasUnpairedSurrogate(client) ? codePointBytes(client)
				: client.getBytes(StandardCharsets.UTF_8));
		return "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, HASHED_BYTES));
	}

	private static boolean hasUnpairedSurrogate(String client) {
		for (int i = 0; i < client.length(); i++) {
			char c = client.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < client.length()
					&& Character.isLowSurrogate(client.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Every code point, unpaired surrogates included, in UTF-8's byte layout (the encoding known as WTF-8): the same
	 * bytes as UTF-8 for valid text, and an unpaired surrogate's bytes are never valid UTF-8, so no two strings share
	 * them.
	 */
	private static byte[] codePointBytes(String client) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(client.length() * 3);
		client.codePoints().forEach((codePoint) -> {
			if (codePoint < 0x80) {
				out.write(codePoint);
			}
			else if (codePoint < 0x800) {
				out.write(0xC0 | (codePoint >> 6));
				out.write(0x80 | (codePoint & 0x3F));
			}
			else if (codePoint < 0x10000) {
				out.write(0xE0 | (codePoint >> 12));
				out.write(0x80 | ((codePoint >> 6) & 0x3F));
				out.write(0x80 | (codePoint & 0x3F));
			}
			else {
				out.write(0xF0 | (codePoint >> 18));
				out.write(0x80 | ((codePoint >> 12) & 0x3F));
				out.write(0x80 | ((codePoint >> 6) & 0x3F));
				out.write(0x80 | (codePoint & 0x3F));
			}
		});
		return out.toByteArray();
	}

	private static byte[] sha256(byte[] bytes) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(bytes);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
