package io.github.ratelimit.spring;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests that a client address becomes the canonical text of its network prefix, never by a name lookup, and that
 * text which is no IP address stays as the server reported it.
 */
class IpKeysTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			203.0.113.7                               | 203.0.113.7
			0.0.0.0                                   | 0.0.0.0
			255.255.255.255                           | 255.255.255.255
			2001:db8:1:2::7                           | 2001:db8:1:2::/64
			2001:0DB8:0001:0002:ffff:ffff:ffff:ffff   | 2001:db8:1:2::/64
			2001:db8:1:2:0:0:0:0                      | 2001:db8:1:2::/64
			[2001:db8:1:2::7]                         | 2001:db8:1:2::/64
			0:0:0:0:0:0:0:1                           | ::/64
			::1                                       | ::/64
			::                                        | ::/64
			fe80::1%eth0                              | fe80::/64
			fe80::1%25                                | fe80::/64
			::ffff:192.0.2.1                          | 192.0.2.1
			0:0:0:0:0:ffff:c000:201                   | 192.0.2.1
			[::FFFF:192.0.2.1]                        | 192.0.2.1
			64:ff9b::192.0.2.1                        | 64:ff9b::/64
			1:2:3:4:5:6:7:8                           | 1:2:3:4::/64
			""")
	void defaultKeysShouldBeWholeIpv4AddressesAndIpv6Slash64Prefixes(String address, String key) {
		assertThat(IpKeys.DEFAULT.keyOf(address)).isEqualTo(key);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			::ffff:192.0.2.1        | 192.0.2.1      | 192.0.2.1
			100::ffff:192.0.2.1     | 100::/64       | 100::ffff:c000:201
			1::ffff:192.0.2.1       | 1::/64         | 1::ffff:c000:201
			0:100::ffff:192.0.2.1   | 0:100::/64     | 0:100::ffff:c000:201
			0:1::ffff:192.0.2.1     | 0:1::/64       | 0:1::ffff:c000:201
			0:0:100::ffff:192.0.2.1 | 0:0:100::/64   | ::100:0:0:ffff:c000:201
			0:0:1::ffff:192.0.2.1   | 0:0:1::/64     | ::1:0:0:ffff:c000:201
			::100:0:ffff:192.0.2.1  | 0:0:0:100::/64 | ::100:0:ffff:c000:201
			::1:0:ffff:192.0.2.1    | 0:0:0:1::/64   | ::1:0:ffff:c000:201
			::100:ffff:192.0.2.1    | ::/64          | ::100:ffff:c000:201
			::1:ffff:192.0.2.1      | ::/64          | ::1:ffff:c000:201
			::ff:192.0.2.1          | ::/64          | ::ff:c000:201
			::feff:192.0.2.1        | ::/64          | ::feff:c000:201
			::ff00:192.0.2.1        | ::/64          | ::ff00:c000:201
			::fffe:192.0.2.1        | ::/64          | ::fffe:c000:201
			""")
	void onlyTheWholeIpv4MappedPrefixShouldMakeAnIpv4Key(String address, String key, String wholeAddressKey) {
		// each look-alike differs from ::ffff:0:0/96 in one of its twelve bytes, so it is IPv6, keyed by its /64
		assertThat(IpKeys.DEFAULT.keyOf(address)).isEqualTo(key);
		assertThat(new IpKeys(32, 128).keyOf(address)).isEqualTo(wholeAddressKey);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "/var/run/app.sock", "localhost", "example.com", "1.2.3", "1.2.3.4.5",
			"256.1.1.1", "1.2.3.-4", "1.2.3.4 ", "01234.1.1.1", "1.2.3.4:8080", "1.2.3.4%eth0", "2001:db8::1::2",
			":::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8", "12345::1", "g::1", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:",
			"::1.2.3", "1.2.3.4::", "[2001:db8::1", "[]", "::ffff:1.2.3.256", "\uff12001:db8::1", "1.2.3.\u0664" })
	void textThatIsNoIpAddressShouldBeItsOwnKey(String text) {
		assertThat(IpKeys.DEFAULT.keyOf(text)).isEqualTo(text);
	}

	@Test
	void everyAddressOfOneSlash64ShouldHaveOneKey() {
		Set<String> keys = new HashSet<>();
		for (int i = 0; i < 1000; i++) {
			keys.add(IpKeys.DEFAULT.keyOf("2001:db8:aa:bb:" + Integer.toHexString(i) + ":" + Integer.toHexString(i * 7)
					+ "::" + Integer.toHexString(i * 13)));
		}
		assertThat(keys).containsExactly("2001:db8:aa:bb::/64");
	}

	@Test
	void neighbouringSlash64sShouldHaveKeysOfTheirOwn() {
		assertThat(IpKeys.DEFAULT.keyOf("2001:db8:aa:bb::1")).isNotEqualTo(IpKeys.DEFAULT.keyOf("2001:db8:aa:bc::1"));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			24  | 128 | 203.0.113.7        | 203.0.113.0/24
			1   | 128 | 203.0.113.7        | 128.0.0.0/1
			31  | 128 | 203.0.113.7        | 203.0.113.6/31
			32  | 128 | 2001:db8:1:2::7    | 2001:db8:1:2::7
			32  | 128 | ::1                | ::1
			32  | 128 | 1:0:0:2:0:0:0:3    | 1:0:0:2::3
			32  | 128 | 1:0:0:2:2:0:0:3    | 1::2:2:0:0:3
			32  | 128 | 1:2:3:4:5:6:7:0    | 1:2:3:4:5:6:7:0
			32  | 56  | 2001:db8:1:2ff::7  | 2001:db8:1:200::/56
			32  | 48  | 2001:db8:1:2::7    | 2001:db8:1::/48
			32  | 1   | ffff::1            | 8000::/1
			32  | 127 | 2001:db8::3        | 2001:db8::2/127
			16  | 64  | ::ffff:192.0.2.1   | 192.0.0.0/16
			""")
	void configuredPrefixesShouldMaskTheAddress(int ipv4, int ipv6, String address, String key) {
		assertThat(new IpKeys(ipv4, ipv6).keyOf(address)).isEqualTo(key);
	}

	@Test
	void keysShouldNameTheSameNetworkAsJavasOwnParser() throws UnknownHostException {
		IpKeys whole = new IpKeys(32, 128);
		for (String address : new String[] { "2001:db8:0:0:1:0:0:1", "2001:0:0:1::1", "::ffff:0:0", "1::",
				"abcd:ef01:2345:6789:abcd:ef01:2345:6789", "::10.0.0.1", "fe80::a:b:c:d" }) {
			String key = whole.keyOf(address);
			assertThat(InetAddress.getByName(key)).as(address).isEqualTo(InetAddress.getByName(address));
		}
	}

	/**
	 * A whole IPv4 address already written as its key is its own key without being parsed: the check that lets it
	 * through agrees with the grammar of what {@code keyOf} writes (0 to 255, no leading zeros) on every string tried,
	 * and such an address is the key the parser makes of it.
	 */
	@Test
	void anAddressAlreadyInItsKeysFormShouldBeTakenAsItIsExactlyWhenTheParserWouldWriteIt() {
		Pattern part = Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])");
		Pattern canonical = Pattern.compile(part + "(\\." + part + "){3}");
		Random random = new Random(42);
		String alphabet = "0123456789..a:";
		for (int i = 0; i < 200_000; i++) {
			StringBuilder text = new StringBuilder();
			if (i % 2 == 0) {
				// near-addresses: four parts, some out of range or with leading zeros, some parts missing or extra
				int parts = 3 + random.nextInt(3);
				for (int p = 0; p < parts; p++) {
					text.append((p > 0) ? "." : "").append((random.nextInt(8) == 0) ? "0" : "")
						.append(random.nextInt(random.nextBoolean() ? 300 : 10));
				}
			}
			else {
				int length = random.nextInt(17);
				for (int c = 0; c < length; c++) {
					text.append(alphabet.charAt(random.nextInt(alphabet.length())));
				}
			}
			String address = text.toString();
			boolean expected = canonical.matcher(address).matches();
			assertThat(IpKeys.isCanonicalIpv4(address)).as(address).isEqualTo(expected);
			if (expected) {
				assertThat(new IpKeys(32, 128).keyOf("::ffff:" + address)).as(address).isEqualTo(address);
			}
		}
		assertThat(IpKeys.isCanonicalIpv4("")).isFalse();
		assertThat(IpKeys.isCanonicalIpv4("1.2.3.")).isFalse();
		assertThat(IpKeys.isCanonicalIpv4(".1.2.3")).isFalse();
		assertThat(IpKeys.isCanonicalIpv4("1.2.3.4.5")).isFalse();
		assertThat(IpKeys.isCanonicalIpv4("1.2.3.256")).isFalse();
		assertThat(IpKeys.isCanonicalIpv4("1.2.3.04")).isFalse();
		assertThat(IpKeys.DEFAULT.keyOf("1.2.3.04")).isEqualTo("1.2.3.4");
		assertThat(IpKeys.isCanonicalIpv4("10.0.0.1")).isTrue();
	}

	@ParameterizedTest
	@CsvSource({ "0, 64", "33, 64", "-1, 64", "32, 0", "32, 129" })
	void prefixLengthsOutOfRangeShouldBeRefused(int ipv4, int ipv6) {
		assertThatIllegalArgumentException().isThrownBy(() -> new IpKeys(ipv4, ipv6)).withMessageContaining("prefix length");
	}

}
