package io.github.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;

/**
 * The script arguments of one policy, encoded once: {@code ARGV} is the permits, whether to consume (1|0), then
 * each limit's constants. Only the first two change per call.
 */
final class LimitArguments {

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
		List<Limit> limits = policy.limits();
		this.template = new byte[2 + 2 * limits.size()][];
		for (int i = 0; i < limits.size(); i++) {
			this.template[2 + 2 * i] = encode(limits.get(i).capacity());
			this.template[3 + 2 * i] = encode(limits.get(i).periodMicros());
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
		arguments[0] = (permits < SMALL_NUMBERS.length) ? SMALL_NUMBERS[(int) permits] : encode(permits);
		arguments[1] = consume ? CONSUME : PEEK;
		return arguments;
	}

	private static byte[] encode(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}
