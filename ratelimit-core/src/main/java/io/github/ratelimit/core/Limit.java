package io.github.ratelimit.core;

import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One limit of a policy: at most {@code capacity} permits per {@code period}.
 * <p>
 * Written in configuration as {@code "100/1m"}, {@code "5/10s"} or {@code "50000/1d"} (units {@code ms}, {@code s},
 * {@code m}, {@code h}, {@code d}). Decisions are computed in integer microseconds; a limit whose capacity and period
 * cannot be represented exactly that way (their least common multiple above 2<sup>53</sup>, or a period over 1000
 * days) is rejected rather than decided approximately. Some algorithms bound limits further: see {@link Policy}.
 *
 * @param capacity the permits allowed per period, at least 1
 * @param period the period, at least one millisecond, in whole microseconds
 */
public record Limit(long capacity, Duration period) {

	/** The largest integer that Redis' Lua (IEEE doubles) and this library compute with exactly. */
	public static final long EXACT_INTEGER_LIMIT = 1L << 53;

	/**
	 * The longest period, 1000 days: times a decision forms (now plus a period, in microseconds since the epoch) stay
	 * below 2<sup>53</sup> until the year 2250.
	 */
	public static final Duration MAX_PERIOD = Duration.ofDays(1000);

	private static final Pattern SYNTAX = Pattern.compile("\\s*(\\d+)\\s*/\\s*(\\d*)\\s*(ms|s|m|h|d)\\s*");

	/**
	 * Creates a limit, validating it.
	 * @param capacity the permits allowed per period
	 * @param period the period
	 * @throws IllegalArgumentException when the capacity or period is not positive, the period is shorter than one
	 * millisecond, longer than 1000 days or not a whole number of microseconds, or the pair cannot be computed with
	 * exactly
	 */
	public Limit {
		if (period == null) {
			throw new IllegalArgumentException("Limit period must not be null");
		}
		if (capacity < 1) {
			throw new IllegalArgumentException("Limit capacity must be at least 1, was " + capacity);
		}
		if (period.compareTo(Duration.ofMillis(1)) < 0) {
			throw new IllegalArgumentException("Limit period must be at least 1ms, was " + period);
		}
		if (period.compareTo(MAX_PERIOD) > 0) {
			throw new IllegalArgumentException("Limit period must be at most 1000d, was " + period);
		}
		if (period.getNano() % 1000 != 0) {
			throw new IllegalArgumentException("Limit period must be a whole number of microseconds, was " + period);
		}
		long periodMicros = toMicros(period);
		if (!exact(capacity, periodMicros)) {
			throw new IllegalArgumentException("Limit " + capacity + " per " + period
					+ " cannot be decided exactly (the least common multiple of the capacity and the period in microseconds must be at most 2^53 = 9007199254740992); use a rounder capacity or a shorter period");
		}
	}

	/**
	 * One instance's share of this limit when {@code instances} instances decide alone what they decide together: the
	 * capacity divided by the instances (rounded down, at least 1), rounded down further to the nearest capacity this
	 * period can be decided exactly with. That rounding only applies to large capacities over long periods (say
	 * {@code 10000000/1d} by 3: 3,333,312 rather than 3,333,333) and costs a share a few permits in a million.
	 * @param instances the number of instances, at least 1
	 * @return the share
	 * @throws IllegalArgumentException when instances is below 1, or no capacity of at least one permit near the share
	 * can be decided exactly with this period
	 */
	public Limit share(int instances) {
		if (instances < 1) {
			throw new IllegalArgumentException("Instances must be at least 1, was " + instances);
		}
		long share = Math.max(1, this.capacity / instances);
		long periodMicros = periodMicros();
		if (exact(share, periodMicros)) {
			return new Limit(share, this.period);
		}
		long largestReduced = EXACT_INTEGER_LIMIT / periodMicros;
		// a multiple k x d of a divisor d of the period reduces to at most k: the smallest such d keeps the most
		for (long divisor = Math.max(1, (share + largestReduced - 1) / largestReduced); divisor <= share; divisor++) {
			if (periodMicros % divisor == 0) {
				return new Limit(share / divisor * divisor, this.period);
			}
		}
		throw new IllegalArgumentException("Limit " + this + " divided by " + instances + " instances cannot be decided exactly; use a rounder capacity");
	}

	/**
	 * Whether the least common multiple of a capacity and a period is at most 2^53, so every decision is exact.
	 */
	private static boolean exact(long capacity, long periodMicros) {
		long gcd = BigInteger.valueOf(capacity).gcd(BigInteger.valueOf(periodMicros)).longValueExact();
		return capacity / gcd <= EXACT_INTEGER_LIMIT / periodMicros;
	}

	/**
	 * Creates a limit of {@code capacity} permits per {@code period}.
	 * @param capacity the permits allowed per period
	 * @param period the period
	 * @return the limit
	 */
	public static Limit of(long capacity, Duration period) {
		return new Limit(capacity, period);
	}

	/**
	 * Parses a limit written as {@code "<capacity>/<amount><unit>"}, for example {@code "100/1m"}; the amount may be
	 * omitted ({@code "100/m"}).
	 * @param text the limit
	 * @return the limit
	 * @throws IllegalArgumentException when the text is not a valid limit
	 */
	public static Limit parse(String text) {
		if (text == null) {
			throw new IllegalArgumentException("Limit must not be null; expected a value such as \"100/1m\"");
		}
		Matcher matcher = SYNTAX.matcher(text);
		if (!matcher.matches()) {
			throw new IllegalArgumentException("Invalid limit '" + text
					+ "': expected <capacity>/<period> such as \"100/1m\", \"5/10s\" or \"50000/1d\" (units ms, s, m, h, d)");
		}
		try {
			long capacity = Long.parseLong(matcher.group(1));
			long amount = matcher.group(2).isEmpty() ? 1 : Long.parseLong(matcher.group(2));
			return new Limit(capacity, Duration.of(amount, unit(matcher.group(3))));
		}
		catch (NumberFormatException | ArithmeticException ex) {
			throw new IllegalArgumentException("Invalid limit '" + text + "': number too large", ex);
		}
	}

	/**
	 * The period in microseconds.
	 * @return the period in microseconds
	 */
	public long periodMicros() {
		return toMicros(this.period);
	}

	/**
	 * The period in whole seconds, rounded up, as used by rate limit headers.
	 * @return the period in seconds, at least 1
	 */
	public long periodSeconds() {
		long seconds = this.period.toSeconds();
		return (this.period.getNano() > 0) ? seconds + 1 : Math.max(1, seconds);
	}

	/**
	 * The canonical text of this limit, {@code "<capacity>/<period>"}, with the period in the largest unit that divides
	 * it exactly.
	 * @return the canonical text
	 */
	@Override
	public String toString() {
		return this.capacity + "/" + periodText();
	}

	/**
	 * The canonical text of the period, such as {@code "1m"} or {@code "10s"}: the amount in the largest unit that
	 * divides it exactly.
	 * @return the period's text
	 */
	public String periodText() {
		long micros = periodMicros();
		long[] sizes = { 86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L };
		String[] units = { "d", "h", "m", "s", "ms" };
		for (int i = 0; i < sizes.length; i++) {
			if (micros % sizes[i] == 0) {
				return (micros / sizes[i]) + units[i];
			}
		}
		return micros + "us";
	}

	private static ChronoUnit unit(String unit) {
		return switch (unit) {
			case "ms" -> ChronoUnit.MILLIS;
			case "s" -> ChronoUnit.SECONDS;
			case "m" -> ChronoUnit.MINUTES;
			case "h" -> ChronoUnit.HOURS;
			default -> ChronoUnit.DAYS;
		};
	}

	private static long toMicros(Duration duration) {
		return Math.addExact(Math.multiplyExact(duration.getSeconds(), 1_000_000L), duration.getNano() / 1000);
	}

}
