package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;

import org.jspecify.annotations.Nullable;

/**
 * Fixed window, the twin of {@code fixed-window.lua}: state {@code [window index, count]}, windows aligned to the
 * epoch.
 */
final class LocalFixedWindow implements LocalAlgorithm {

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long period = limit.periodMicros();
		long window = LocalAlgorithm.floorDiv(now, period);
		long left = (window + 1) * period - now;
		long count = (state != null && state[0] == window) ? state[1] : 0;
		boolean allowed = count + permits <= limit.capacity();
		long after = (allowed && consume) ? count + permits : count;
		LimitOutcome outcome = new LimitOutcome(limit, allowed, Math.max(0, limit.capacity() - after),
				allowed ? 0 : left, (after > 0) ? left : 0, (after > 0) ? left : 0);
		return new Step(outcome, new long[] { window, after }, now + left);
	}

}
