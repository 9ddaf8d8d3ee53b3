package io.github.ratelimit.test;

import java.time.Duration;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;

/**
 * Windows a test starts itself. Fixed and sliding windows are aligned to the epoch, so a test of {@code 10/1h} whose
 * calls straddle an hour sees two windows, and a test that must cross a boundary waits for one. Every period has
 * boundaries of its own, though: among the whole-millisecond periods a little longer than a limit's, one puts a
 * boundary where the test needs it, a moment before now or within a span ahead. The limits these methods return keep
 * the capacity as written; their period is the least such one, at least the one written. A changed period changes the
 * limit, and with it the policy's keys (their fingerprint), so such a limit also starts from fresh state.
 */
public final class StartedWindow {

	private StartedWindow() {
	}

	/**
	 * A limit whose window began at the test: the capacity of {@code limit} per the shortest whole-millisecond period
	 * at least as long as its own whose window in force at {@code nowMicros} lasts at least that period more. The
	 * window began at most the difference of the two periods before {@code nowMicros}: a few seconds for an hour, less
	 * than a minute for a day.
	 * @param nowMicros the time, in microseconds, on the clock that decides
	 * @param limit the limit as written, such as {@code "10/1h"}
	 * @return the limit whose window began at the test
	 */
	public static Limit begunAt(long nowMicros, String limit) {
		Limit written = Limit.parse(limit);
		return endingWithin(nowMicros, written, written.periodMicros(), Long.MAX_VALUE);
	}

	/**
	 * {@link #begunAt(long, String)} for an algorithm whose windows are aligned to the epoch (fixed and sliding
	 * windows); any other's state starts at the first request anyway, so its limit is the one written.
	 * @param nowMicros the time, in microseconds, on the clock that decides
	 * @param algorithm the algorithm
	 * @param limit the limit as written
	 * @return the limit whose window began at the test, or the limit as written
	 */
	public static Limit begunAt(long nowMicros, Algorithm algorithm, String limit) {
		return switch (algorithm) {
			case FIXED_WINDOW, SLIDING_WINDOW -> begunAt(nowMicros, limit);
			case TOKEN_BUCKET, GCRA, SLIDING_LOG -> Limit.parse(limit);
		};
	}

	/**
	 * A limit whose window in force at {@code nowMicros} ends between {@code soonest} and {@code latest} after it:
	 * the capacity of {@code limit} per the shortest such whole-millisecond period at least as long as its own. A test
	 * that crosses a boundary on purpose finds one there, without waiting for the clock.
	 * @param nowMicros the time, in microseconds, on the clock that decides
	 * @param limit the limit as written
	 * @param soonest the shortest time the window may have left
	 * @param latest the longest time the window may have left, at least a millisecond more than {@code soonest}
	 * @return the limit whose window ends within the span
	 */
	public static Limit endingWithin(long nowMicros, String limit, Duration soonest, Duration latest) {
		return endingWithin(nowMicros, Limit.parse(limit), soonest.toNanos() / 1000, latest.toNanos() / 1000);
	}

	/**
	 * When the limit's window in force at a time ends.
	 * @param limit the limit
	 * @param micros the time, in microseconds
	 * @return the end of its window, in microseconds
	 */
	public static long end(Limit limit, long micros) {
		return (Math.floorDiv(micros, limit.periodMicros()) + 1) * limit.periodMicros();
	}

	private static Limit endingWithin(long nowMicros, Limit limit, long soonest, long latest) {
		for (long period = limit.periodMicros();; period += 1000) {
			long left = period - Math.floorMod(nowMicros, period);
			if (left >= soonest && left <= latest) {
				return new Limit(limit.capacity(), Duration.ofNanos(period * 1000));
			}
		}
	}

}
