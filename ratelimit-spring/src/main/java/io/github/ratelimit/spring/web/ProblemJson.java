package io.github.ratelimit.spring.web;

import java.util.Collection;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.http.ProblemDetail;

/**
 * Writes a {@link ProblemDetail} as {@code application/problem+json} without a JSON library, so refusals are
 * answered the same in applications with or without Jackson, with the members Spring MVC's Jackson rendering writes
 * (a test compares the two): the standard members ({@code type}, {@code title},
 * {@code status}, {@code detail}, {@code instance}) and the extension members, whose values are strings, numbers,
 * booleans or collections of them.
 */
public final class ProblemJson {

	private ProblemJson() {
	}

	/**
	 * The JSON text of a problem.
	 * @param problem the problem
	 * @return its JSON
	 */
	public static String of(ProblemDetail problem) {
		StringBuilder json = new StringBuilder(256).append('{');
		member(json, "type", problem.getType());
		member(json, "title", problem.getTitle());
		member(json, "status", problem.getStatus());
		member(json, "detail", problem.getDetail());
		member(json, "instance", problem.getInstance());
		Map<String, @Nullable Object> properties = problem.getProperties();
		if (properties != null) {
			properties.forEach((name, value) -> member(json, name, value));
		}
		return json.append('}').toString();
	}

	private static void member(StringBuilder json, String name, @Nullable Object value) {
		if (value == null) {
			return;
		}
		if (json.length() > 1) {
			json.append(',');
		}
		string(json, name);
		json.append(':');
		value(json, value);
	}

	private static void value(StringBuilder json, Object value) {
		if (value instanceof Number || value instanceof Boolean) {
			json.append(value);
		}
		else if (value instanceof Collection<?> values) {
			json.append('[');
			boolean first = true;
			for (Object element : values) {
				if (!first) {
					json.append(',');
				}
				first = false;
				if (element == null) {
					json.append("null");
				}
				else {
					value(json, element);
				}
			}
			json.append(']');
		}
		else {
			string(json, value.toString());
		}
	}

	private static void string(StringBuilder json, String text) {
		json.append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"' -> json.append("\\\"");
				case '\\' -> json.append("\\\\");
				case '\n' -> json.append("\\n");
				case '\r' -> json.append("\\r");
				case '\t' -> json.append("\\t");
				default -> {
					if (c < 0x20) {
						json.append(String.format("\\u%04x", (int) c));
					}
					else {
						json.append(c);
					}
				}
			}
		}
		json.append('"');
	}

}
