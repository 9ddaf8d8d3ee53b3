package io.github.ratelimit.sample;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series of a scrape in the Prometheus text exposition format, as {@code /actuator/prometheus} answers it: the
 * name and labels of each sample line, without values or comments.
 */
final class PrometheusScrape {

	private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+\\S+.*");

	private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

	private final Map<String, List<Map<String, String>>> series;

	private PrometheusScrape(Map<String, List<Map<String, String>>> series) {
		this.series = series;
	}

	static PrometheusScrape parse(String text) {
		Map<String, List<Map<String, String>>> series = new LinkedHashMap<>();
		for (String line : text.split("\n")) {
			Matcher sample = SAMPLE.matcher(line.strip());
			if (line.startsWith("#") || !sample.matches()) {
				continue;
			}
			Map<String, String> labels = new LinkedHashMap<>();
			if (sample.group(2) != null) {
				Matcher label = LABEL.matcher(sample.group(2));
				while (label.find()) {
					labels.put(label.group(1), label.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
				}
			}
			series.computeIfAbsent(sample.group(1), (name) -> new ArrayList<>()).add(labels);
		}
		return new PrometheusScrape(series);
	}

	/**
	 * The label sets of every series of a metric.
	 * @param metric the Prometheus name, e.g. {@code ratelimit_requests_total}
	 * @return the label sets, empty when the scrape has no such metric
	 */
	List<Map<String, String>> series(String metric) {
		return this.series.getOrDefault(metric, List.of());
	}

	/**
	 * The names of the labels that every series of a metric carries.
	 * @param metric the Prometheus name
	 * @return the label names
	 */
	Set<String> labelNames(String metric) {
		Set<String> names = null;
		for (Map<String, String> labels : series(metric)) {
			if (names == null) {
				names = new TreeSet<>(labels.keySet());
			}
			else {
				names.retainAll(labels.keySet());
			}
		}
		return (names != null) ? names : Set.of();
	}

	/**
	 * The values a label takes on a metric's series.
	 * @param metric the Prometheus name
	 * @param label the label name
	 * @return the values
	 */
	Set<String> labelValues(String metric, String label) {
		Set<String> values = new TreeSet<>();
		series(metric).stream().map((labels) -> labels.get(label)).filter((value) -> value != null)
			.forEach(values::add);
		return values;
	}

	Set<String> metrics() {
		return this.series.keySet();
	}

}
