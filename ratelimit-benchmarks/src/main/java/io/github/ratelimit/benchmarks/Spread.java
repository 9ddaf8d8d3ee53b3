package io.github.ratelimit.benchmarks;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * The median of a few runs' values and their range.
 *
 * @param median the median (of an even number of values, the mean of the middle two)
 * @param min the lowest value
 * @param max the highest value
 * @param count how many values
 */
record Spread(double median, double min, double max, int count) {

	static Spread of(List<Double> values) {
		double[] sorted = values.stream().mapToDouble(Double::doubleValue).filter((value) -> !Double.isNaN(value))
			.sorted()
			.toArray();
		if (sorted.length == 0) {
			return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
		}
		int middle = sorted.length / 2;
		double median = (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
		return new Spread(median, sorted[0], sorted[sorted.length - 1], sorted.length);
	}

	static Spread of(double... values) {
		return of(Arrays.stream(values).boxed().toList());
	}

	/**
	 * The range relative to the median, the run-to-run noise of this value.
	 * @return (max - min) / median
	 */
	double relativeRange() {
		return (this.max - this.min) / this.median;
	}

	/**
	 * The median with its range, such as {@code 0.93x (0.91–0.95)}.
	 * @param format how one value is written
	 * @return the text
	 */
	String format(DoubleFunction<String> format) {
		if (this.count == 0) {
			return "-";
		}
		if (this.count == 1) {
			return format.apply(this.median);
		}
		return format.apply(this.median) + " (" + format.apply(this.min) + "–" + format.apply(this.max) + ")";
	}

	static String ratio(double ratio) {
		return String.format(Locale.ROOT, "%.2fx", ratio);
	}

	static String rate(double perSecond) {
		return String.format(Locale.ROOT, "%,.0f", perSecond);
	}

	static String micros(double micros) {
		return String.format(Locale.ROOT, "%.1f", micros);
	}

}
