package io.github.ratelimit.spring;

import java.util.Arrays;
import java.util.StringJoiner;
import java.util.function.IntPredicate;

import org.jspecify.annotations.Nullable;

/**
 * The {@code ip} key of a client address: the address's network prefix, IPv4 by default the whole address ({@code /32})
 * and IPv6 by default the {@code /64} one host usually holds, written canonically so that equal prefixes give equal
 * keys ({@code 203.0.113.7}, {@code 2001:db8:1:2::/64}).
 * <p>
 * The address text is parsed here, never resolved: no name lookup happens, whatever the text. An IPv4-mapped IPv6
 * address ({@code ::ffff:192.0.2.1}) counts as the IPv4 address it carries, and a zone ({@code fe80::1%eth0}) or
 * brackets are dropped. Text that is no IP address (a Unix socket path, an empty string) is its own key, as the
 * server reported it.
 */
public final class IpKeys {

	/** The default IPv4 prefix length: the whole address. */
	public static final int DEFAULT_IPV4_PREFIX_LENGTH = 32;

	/** The default IPv6 prefix length: the {@code /64} one host usually holds. */
	public static final int DEFAULT_IPV6_PREFIX_LENGTH = 64;

	/** Whole IPv4 addresses and IPv6 {@code /64} prefixes. */
	public static final IpKeys DEFAULT = new IpKeys(DEFAULT_IPV4_PREFIX_LENGTH, DEFAULT_IPV6_PREFIX_LENGTH);

	private static final int IPV4_BITS = 32;

	private static final int IPV6_BITS = 128;

	private static final int IPV6_WORDS = 8;

	private final int ipv4PrefixLength;

	private final int ipv6PrefixLength;

	/**
	 * Creates the keys of the given prefixes.
	 * @param ipv4PrefixLength the bits of an IPv4 address that identify a client, 1 to 32
	 * @param ipv6PrefixLength the bits of an IPv6 address that identify a client, 1 to 128
	 * @throws IllegalArgumentException when a length is out of its range
	 */
	public IpKeys(int ipv4PrefixLength, int ipv6PrefixLength) {
		this.ipv4PrefixLength = checkLength("IPv4", ipv4PrefixLength, IPV4_BITS);
		this.ipv6PrefixLength = checkLength("IPv6", ipv6PrefixLength, IPV6_BITS);
	}

	private static int checkLength(String family, int length, int bits) {
		if (length < 1 || length > bits) {
			throw new IllegalArgumentException("an " + family + " prefix length is 1 to " + bits + ", was " + length);
		}
		return length;
	}

	/**
	 * The key of a client address.
	 * @param address the address as the server reports it, such as {@code 2001:db8:1:2::7}
	 * @return its prefix, such as {@code 2001:db8:1:2::/64}, or the text itself when it is no IP address
	 */
	public String keyOf(String address) {
		if (this.ipv4PrefixLength == IPV4_BITS && isCanonicalIpv4(address)) {
			// most clients, on every request: the whole address, already in the text the key is written in
			return address;
		}
		byte[] bytes = parse(address);
		if (bytes == null) {
			return address;
		}
		boolean ipv4 = bytes.length == 4;
		int prefixLength = ipv4 ? this.ipv4PrefixLength : this.ipv6PrefixLength;
		mask(bytes, prefixLength);
		String network = ipv4 ? formatIpv4(bytes) : formatIpv6(bytes);
		return (prefixLength == bytes.length * 8) ? network : network + "/" + prefixLength;
	}

	/**
	 * Whether the text is an IPv4 address as {@link #formatIpv4} writes it: four decimal parts of 0 to 255, without
	 * leading zeros, separated by dots.
	 */
	static boolean isCanonicalIpv4(String text) {
		int parts = 1;
		int value = 0;
		int digits = 0;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '.') {
				if (digits == 0 || parts == 4) {
					return false;
				}
				parts++;
				value = 0;
				digits = 0;
			}
			else if (c >= '0' && c <= '9') {
				if (digits == 1 && value == 0) {
					return false;
				}
				value = value * 10 + (c - '0');
				digits++;
				if (value > 255) {
					return false;
				}
			}
			else {
				return false;
			}
		}
		return parts == 4 && digits > 0;
	}

	private static byte @Nullable [] parse(String text) {
		String address = text;
		if (address.length() > 2 && address.startsWith("[") && address.endsWith("]")) {
			address = address.substring(1, address.length() - 1);
		}
		if (address.indexOf(':') < 0) {
			return ipv4(address);
		}
		int zone = address.indexOf('%');
		byte[] bytes = ipv6((zone < 0) ? address : address.substring(0, zone));
		return (bytes != null && isIpv4Mapped(bytes)) ? Arrays.copyOfRange(bytes, 12, 16) : bytes;
	}

	private static byte @Nullable [] ipv4(String address) {
		String[] parts = address.split("\\.", -1);
		if (parts.length != 4) {
			return null;
		}
		byte[] bytes = new byte[4];
		for (int i = 0; i < 4; i++) {
			String part = parts[i];
			if (part.isEmpty() || part.length() > 3 || !allMatch(part, IpKeys::isDecimalDigit)) {
				return null;
			}
			int value = Integer.parseInt(part);
			if (value > 255) {
				return null;
			}
			bytes[i] = (byte) value;
		}
		return bytes;
	}

	/** An IPv6 address in any of RFC 4291's text forms: eight groups, {@code ::} for zeros, an IPv4 tail. */
	private static byte @Nullable [] ipv6(String address) {
		int gap = address.indexOf("::");
		if (gap >= 0 && address.indexOf("::", gap + 1) >= 0) {
			return null;
		}
		int[] head = words((gap < 0) ? address : address.substring(0, gap), gap < 0);
		int[] tail = (gap < 0) ? new int[0] : words(address.substring(gap + 2), true);
		if (head == null || tail == null) {
			return null;
		}
		int count = head.length + tail.length;
		if ((gap < 0) ? count != IPV6_WORDS : count >= IPV6_WORDS) {
			return null;
		}
		int[] all = new int[IPV6_WORDS];
		System.arraycopy(head, 0, all, 0, head.length);
		System.arraycopy(tail, 0, all, IPV6_WORDS - tail.length, tail.length);
		byte[] bytes = new byte[16];
		for (int i = 0; i < IPV6_WORDS; i++) {
			bytes[2 * i] = (byte) (all[i] >> 8);
			bytes[2 * i + 1] = (byte) all[i];
		}
		return bytes;
	}

	/**
	 * The 16-bit words of colon-separated groups; at the end of an address, the last may be an IPv4 address (two
	 * words).
	 */
	private static int @Nullable [] words(String groups, boolean endOfAddress) {
		if (groups.isEmpty()) {
			return new int[0];
		}
		String[] parts = groups.split(":", -1);
		String last = parts[parts.length - 1];
		byte[] ipv4 = (endOfAddress && last.contains(".")) ? ipv4(last) : null;
		int hexParts = (ipv4 != null) ? parts.length - 1 : parts.length;
		if (hexParts + ((ipv4 != null) ? 2 : 0) > IPV6_WORDS) {
			return null;
		}
		int[] words = new int[hexParts + ((ipv4 != null) ? 2 : 0)];
		for (int i = 0; i < hexParts; i++) {
			String part = parts[i];
			if (part.isEmpty() || part.length() > 4 || !allMatch(part, IpKeys::isHexDigit)) {
				return null;
			}
			words[i] = Integer.parseInt(part, 16);
		}
		if (ipv4 != null) {
			words[hexParts] = ((ipv4[0] & 0xff) << 8) | (ipv4[1] & 0xff);
			words[hexParts + 1] = ((ipv4[2] & 0xff) << 8) | (ipv4[3] & 0xff);
		}
		return words;
	}

	/** Whether every character matches: a loop, since this runs on every ip-keyed decision. */
	private static boolean allMatch(String text, IntPredicate predicate) {
		for (int i = 0; i < text.length(); i++) {
			if (!predicate.test(text.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	private static boolean isDecimalDigit(int c) {
		return c >= '0' && c <= '9';
	}

	private static boolean isHexDigit(int c) {
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	}

	private static boolean isIpv4Mapped(byte[] bytes) {
		for (int i = 0; i < 10; i++) {
			if (bytes[i] != 0) {
				return false;
			}
		}
		return bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff;
	}

	private static void mask(byte[] bytes, int prefixLength) {
		for (int i = 0; i < bytes.length; i++) {
			int kept = Math.min(8, Math.max(0, prefixLength - 8 * i));
			bytes[i] &= (byte) (0xff << (8 - kept));
		}
	}

	private static String formatIpv4(byte[] bytes) {
		StringJoiner text = new StringJoiner(".");
		for (byte b : bytes) {
			text.add(Integer.toString(b & 0xff));
		}
		return text.toString();
	}

	/** RFC 5952's canonical text: lower-case hex without leading zeros, the longest run of zero groups as {@code ::}. */
	private static String formatIpv6(byte[] bytes) {
		int[] words = new int[IPV6_WORDS];
		for (int i = 0; i < IPV6_WORDS; i++) {
			words[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
		}
		int runStart = -1;
		int runLength = 0;
		for (int i = 0; i < IPV6_WORDS; i++) {
			int length = 0;
			while (i + length < IPV6_WORDS && words[i + length] == 0) {
				length++;
			}
			if (length > runLength && length >= 2) {
				runStart = i;
				runLength = length;
			}
		}
		StringBuilder text = new StringBuilder();
		for (int i = 0; i < IPV6_WORDS; i++) {
			if (i == runStart) {
				text.append("::");
				i += runLength - 1;
				continue;
			}
			if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
				text.append(':');
			}
			text.append(Integer.toHexString(words[i]));
		}
		return text.toString();
	}

	@Override
	public String toString() {
		return "IPv4 /" + this.ipv4PrefixLength + ", IPv6 /" + this.ipv6PrefixLength;
	}

}
