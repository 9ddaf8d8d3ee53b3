package io.github.ratelimit.benchmarks;

import java.util.Locale;
import java.util.function.DoubleFunction;
import java.util.function.Supplier;

/**
 * One target of the issue against what a run measured.
 *
 * @param name what the target says, as the report names it
 * @param measured the measured value over the runs
 * @param format how a value is written
 * @param limit the target's bound
 * @param atLeast whether the value must be at least the bound (else at most)
 * @param note why it was missed and what would close it, written from the run's numbers; asked only when missed
 */
record Target(String name, Spread measured, DoubleFunction<String> format, double limit, boolean atLeast,
		Supplier<String> note) {

	boolean met() {
		return this.atLeast ? this.measured.median() >= this.limit : this.measured.median() <= this.limit;
	}

	/**
	 * ✓, or ✗ with how far the median is from the target and whether some runs met it.
	 * @return the verdict
	 */
	String verdict() {
		if (met()) {
			return "✓";
		}
		double median = this.measured.median();
		String by = this.atLeast ? String.format(Locale.ROOT, "%.0f%% short", 100 * (1 - median / this.limit))
				: (this.limit == 0) ? this.format.apply(median) + " over"
						: String.format(Locale.ROOT, "%s over, %.0f%% above", this.format.apply(median - this.limit),
								100 * (median / this.limit - 1));
		boolean someRunMet = this.atLeast ? this.measured.max() >= this.limit : this.measured.min() <= this.limit;
		return "✗ " + by + (someRunMet ? "; some runs met it" : "");
	}

	String measuredText() {
		return this.measured.format(this.format);
	}

}
