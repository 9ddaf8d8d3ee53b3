package io.github.ratelimit.sample;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a PromQL query reads, as far as a dashboard's queries need: its vector selectors (metric name and label
 * matchers) and the labels it groups or matches by. Enough for the aggregations, functions and arithmetic of simple
 * queries, not a PromQL parser.
 */
final class PromQlQuery {

	private static final Pattern GROUPING = Pattern
		.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");

	private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*\\]");

	private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)?\\s*\\{([^}]*)\\}");

	private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*+)(?!\\s*\\()");

	private static final Pattern MATCHER = Pattern
		.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

	private static final Pattern VARIABLE = Pattern.compile("\\$\\{?\\w+\\}?");

	private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
			"bool", "and", "or", "unless", "offset", "inf", "nan");

	private final List<Selector> selectors;

	private final Set<String> groupingLabels;

	private PromQlQuery(List<Selector> selectors, Set<String> groupingLabels) {
		this.selectors = selectors;
		this.groupingLabels = groupingLabels;
	}

	/**
	 * Reads a query.
	 * @param expr the PromQL text, Grafana variables ({@code $policy}, {@code $__rate_interval}) included
	 * @return what it reads
	 */
	static PromQlQuery parse(String expr) {
		Set<String> grouping = new LinkedHashSet<>();
		Matcher groups = GROUPING.matcher(expr);
		while (groups.find()) {
			for (String label : groups.group(1).split(",")) {
				if (!label.isBlank()) {
					grouping.add(label.strip());
				}
			}
		}
		String rest = RANGE.matcher(GROUPING.matcher(expr).replaceAll(" ")).replaceAll(" ");
		List<Selector> selectors = new ArrayList<>();
		Matcher selector = SELECTOR.matcher(rest);
		while (selector.find()) {
			selectors.add(new Selector(selector.group(1), matchers(selector.group(2))));
		}
		Matcher identifier = IDENTIFIER.matcher(SELECTOR.matcher(rest).replaceAll(" "));
		while (identifier.find()) {
			if (!KEYWORDS.contains(identifier.group(1).toLowerCase())) {
				selectors.add(new Selector(identifier.group(1), List.of()));
			}
		}
		return new PromQlQuery(selectors, grouping);
	}

	private static List<LabelMatcher> matchers(String text) {
		List<LabelMatcher> matchers = new ArrayList<>();
		Matcher matcher = MATCHER.matcher(text);
		while (matcher.find()) {
			matchers.add(new LabelMatcher(matcher.group(1), matcher.group(2), matcher.group(3)));
		}
		return matchers;
	}

	List<Selector> selectors() {
		return this.selectors;
	}

	Set<String> groupingLabels() {
		return this.groupingLabels;
	}

	/**
	 * A vector selector.
	 * @param metric the metric name ({@code null} when the selector names none)
	 * @param matchers its label matchers
	 */
	record Selector(String metric, List<LabelMatcher> matchers) {

		boolean selects(Map<String, String> labels) {
			return this.matchers.stream().allMatch((matcher) -> matcher.matches(labels.getOrDefault(matcher.label(), "")));
		}

	}

	/**
	 * A label matcher, its value with Grafana variables standing for every value ({@code .*}, as "All" does).
	 * @param label the label name
	 * @param operator {@code =}, {@code !=}, {@code =~} or {@code !~}
	 * @param value the value or regular expression as written
	 */
	record LabelMatcher(String label, String operator, String value) {

		boolean matches(String actual) {
			String pattern = VARIABLE.matcher(this.value).replaceAll(".*");
			return switch (this.operator) {
				case "=" -> actual.equals(pattern);
				case "!=" -> !actual.equals(pattern);
				case "=~" -> actual.matches(pattern);
				default -> !actual.matches(pattern);
			};
		}

		/**
		 * The values a regular expression matcher lists when it is an alternation of plain values
		 * ({@code failed-open|fallback}).
		 * @return the values, empty for any other matcher
		 */
		List<String> alternatives() {
			if (!this.operator.equals("=~") || !this.value.matches("[\\w-]+(\\|[\\w-]+)+")) {
				return List.of();
			}
			return List.of(this.value.split("\\|"));
		}

	}

}
