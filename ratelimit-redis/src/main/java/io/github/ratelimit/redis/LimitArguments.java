package io.github.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;

/**
 * The script arguments of one policy, encoded once: {@code ARGV} is the permits, whether to consume (1|0), then
 * each limit's constants, the same number for every limit of an algorithm. Only the first two change per call: a
 * lease sends its minimum and {@code L<maximum>}, a reservation its permits and {@code W<maximum wait in us>}, a
 * return of leased permits the permits and when they were taken.
 * <ul>
 * <li>{@code token-bucket} and {@code gcra}: the integer units of one permit ({@code period / g}), the units one
 * microsecond refills ({@code capacity / g}) and the units of a full bucket ({@code capacity * period / g}), with
 * {@code g = gcd(capacity, period)} and the period in microseconds;</li>
 * <li>{@code fixed-window}, {@code sliding-window} and {@code sliding-log}: the capacity and the period in
 * microseconds.</li>
 * </ul>
 */
final class LimitArguments {

	/** The most permits a script reads exactly; no capacity is larger. */
	private static final long EXACT_PERMITS = 1L << 53;

	/**
	 * Permits sent in place of any number above 2<sup>53</sup>: more than every capacity, and, unlike
	 * 2<sup>53</sup> + 1 (which the script would read as 2<sup>53</sup>), held exactly by the script's doubles.
	 */
	private static final long BEYOND_EVERY_CAPACITY = EXACT_PERMITS + 2;

	private static final byte[] CONSUME = { '1' };

	private static final byte[] PEEK = { '0' };

	private static final byte[][] SMALL_NUMBERS = new byte[64][];

	static {
		for (int i = 0; i < SMALL_NUMBERS.length; i++) {
			SMALL_NUMBERS[i] = encode(i);
		}
	}

	private final byte[][] template;

	LimitArguments(Policy policy) {
		List<long[]> constants = policy.limits()
			.stream()
			.map((limit) -> constants(policy.algorithm(), limit))
			.toList();
		int perLimit = constants.get(0).length;
		this.template = new byte[2 + perLimit * constants.size()][];
		for (int i = 0; i < constants.size(); i++) {
			for (int j = 0; j < perLimit; j++) {
				this.template[2 + perLimit * i + j] = encode(constants.get(i)[j]);
			}
		}
	}

	/**
	 * The arguments of one call.
	 * @param permits the permits asked for
	 * @param consume whether to take them when admitted
	 * @return the arguments, a fresh array whose constant elements are shared
	 */
	byte[][] of(long permits, boolean consume) {
		byte[][] arguments = this.template.clone();
		arguments[0] = (permits < SMALL_NUMBERS.length) ? SMALL_NUMBERS[(int) permits]
				: encode((permits > EXACT_PERMITS) ? BEYOND_EVERY_CAPACITY : permits);
		arguments[1] = consume ? CONSUME : PEEK;
		return arguments;
	}

	/**
	 * The arguments of a lease.
	 * @param minimum the fewest permits worth taking
	 * @param maximum the most permits to take, at most the smallest capacity
	 * @return the arguments, a fresh array whose constant elements are shared
	 */
	byte[][] lease(long minimum, long maximum) {
		byte[][] arguments = of(minimum, true);
		arguments[1] = ("L" + maximum).getBytes(StandardCharsets.US_ASCII);
		return arguments;
	}

	/**
	 * The arguments of a reservation.
	 * @param permits the permits asked for
	 * @param maxWaitMicros the longest the caller waits for them, at least 1 and at most 2<sup>53</sup>
	 * @return the arguments, a fresh array whose constant elements are shared
	 */
	byte[][] reserve(long permits, long maxWaitMicros) {
		byte[][] arguments = of(permits, true);
		arguments[1] = ("W" + maxWaitMicros).getBytes(StandardCharsets.US_ASCII);
		return arguments;
	}

	/**
	 * The arguments of {@code fixed-window-return.lua}.
	 * @param permits the permits given back
	 * @param takenAtMicros when they were taken, by Redis' clock
	 * @return the arguments, a fresh array whose constant elements are shared
	 */
	byte[][] giveBack(long permits, long takenAtMicros) {
		byte[][] arguments = of(permits, true);
		arguments[1] = encode(takenAtMicros);
		return arguments;
	}

	private static long[] constants(Algorithm algorithm, Limit limit) {
		long capacity = limit.capacity();
		long period = limit.periodMicros();
		return switch (algorithm) {
			case TOKEN_BUCKET, GCRA -> {
				long g = gcd(capacity, period);
				long unit = period / g;
				// the full bucket is the least common multiple, at most 2^53 in every limit Limit accepts
				yield new long[] { unit, capacity / g, Math.multiplyExact(capacity, unit) };
			}
			case FIXED_WINDOW, SLIDING_WINDOW, SLIDING_LOG -> new long[] { capacity, period };
		};
	}

	private static long gcd(long a, long b) {
		while (b != 0) {
			long t = a % b;
			a = b;
			b = t;
		}
		return a;
	}

	private static byte[] encode(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}
