package io.github.ratelimit.test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser of RFC 9651 structured-field Lists of Items with parameters, the grammar rate limit headers use
 * (sections 4.2.1, 4.2.3 and 4.2.4): bare items may be Integers, Decimals, Strings, Tokens or Booleans. Anything else
 * (Inner Lists, Byte Sequences, Dates, Display Strings, which no header of ours uses) and every syntax error fails
 * the parse, as does a parameter key given twice (allowed by the RFC, never sent by us).
 */
public final class StructuredFields {

	private final String input;

	private int position;

	private StructuredFields(String input) {
		this.input = input;
	}

	/**
	 * Parses a field value as an sf-list (RFC 9651 section 4.2, "list").
	 * @param value the field value
	 * @return its members, in order
	 * @throws IllegalArgumentException when the value is not a valid List of Items
	 */
	public static List<Item> parseList(String value) {
		StructuredFields parser = new StructuredFields(value);
		parser.skipSpaces();
		List<Item> members = parser.list();
		parser.skipSpaces();
		parser.expectEnd();
		return members;
	}

	private List<Item> list() {
		List<Item> members = new ArrayList<>();
		while (!atEnd()) {
			members.add(item());
			skipOws();
			if (atEnd()) {
				return members;
			}
			expect(',');
			skipOws();
			if (atEnd()) {
				throw error("a list must not end with a comma");
			}
		}
		return members;
	}

	private Item item() {
		if (peek() == '(') {
			throw error("inner lists are not part of the grammar rate limit headers use");
		}
		Object value = bareItem();
		return new Item(value, parameters());
	}

	private Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		while (!atEnd() && peek() == ';') {
			this.position++;
			skipSpaces();
			String key = key();
			Object value = Boolean.TRUE;
			if (!atEnd() && peek() == '=') {
				this.position++;
				value = bareItem();
			}
			if (parameters.put(key, value) != null) {
				throw error("parameter '" + key + "' given twice");
			}
		}
		return parameters;
	}

	private String key() {
		char first = next("a key");
		if (!(isLcalpha(first) || first == '*')) {
			throw error("a key starts with a lowercase letter or '*', not '" + first + "'");
		}
		StringBuilder key = new StringBuilder().append(first);
		while (!atEnd() && isKeyChar(peek())) {
			key.append(this.input.charAt(this.position++));
		}
		return key.toString();
	}

	private Object bareItem() {
		char c = peek();
		if (c == '-' || isDigit(c)) {
			return number();
		}
		if (c == '"') {
			return string();
		}
		if (c == '?') {
			return bool();
		}
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*') {
			return token();
		}
		throw error("no bare item starts with '" + c + "'");
	}

	private Object number() {
		int start = this.position;
		if (peek() == '-') {
			this.position++;
		}
		int digitsStart = this.position;
		while (!atEnd() && isDigit(peek())) {
			this.position++;
		}
		int integerDigits = this.position - digitsStart;
		if (integerDigits == 0) {
			throw error("a number needs a digit");
		}
		if (atEnd() || peek() != '.') {
			if (integerDigits > 15) {
				throw error("an integer has at most 15 digits");
			}
			return Long.parseLong(this.input.substring(start, this.position));
		}
		if (integerDigits > 12) {
			throw error("a decimal has at most 12 integer digits");
		}
		this.position++;
		int fractionStart = this.position;
		while (!atEnd() && isDigit(peek())) {
			this.position++;
		}
		int fractionDigits = this.position - fractionStart;
		if (fractionDigits < 1 || fractionDigits > 3) {
			throw error("a decimal has one to three fractional digits");
		}
		return new BigDecimal(this.input.substring(start, this.position));
	}

	private String string() {
		expect('"');
		StringBuilder string = new StringBuilder();
		while (true) {
			char c = next("the closing quote of a string");
			if (c == '"') {
				return string.toString();
			}
			if (c == '\\') {
				char escaped = next("an escaped character");
				if (escaped != '"' && escaped != '\\') {
					throw error("only '\"' and '\\' may be escaped in a string");
				}
				string.append(escaped);
			}
			else if (c < 0x20 || c > 0x7e) {
				throw error("a string holds printable ASCII only");
			}
			else {
				string.append(c);
			}
		}
	}

	private Token token() {
		int start = this.position++;
		while (!atEnd() && isTokenChar(peek())) {
			this.position++;
		}
		return new Token(this.input.substring(start, this.position));
	}

	private Boolean bool() {
		expect('?');
		char c = next("a boolean");
		if (c != '0' && c != '1') {
			throw error("a boolean is ?0 or ?1");
		}
		return c == '1';
	}

	private void skipSpaces() {
		while (!atEnd() && peek() == ' ') {
			this.position++;
		}
	}

	private void skipOws() {
		while (!atEnd() && (peek() == ' ' || peek() == '\t')) {
			this.position++;
		}
	}

	private void expect(char expected) {
		char c = next("'" + expected + "'");
		if (c != expected) {
			this.position--;
			throw error("expected '" + expected + "'");
		}
	}

	private void expectEnd() {
		if (!atEnd()) {
			throw error("unexpected trailing characters");
		}
	}

	private char next(String what) {
		if (atEnd()) {
			throw error("ended where " + what + " was expected");
		}
		return this.input.charAt(this.position++);
	}

	private char peek() {
		if (atEnd()) {
			throw error("ended unexpectedly");
		}
		return this.input.charAt(this.position);
	}

	private boolean atEnd() {
		return this.position >= this.input.length();
	}

	private IllegalArgumentException error(String message) {
		return new IllegalArgumentException(
				"Invalid structured field '" + this.input + "' at " + this.position + ": " + message);
	}

	private static boolean isDigit(char c) {
		return c >= '0' && c <= '9';
	}

	private static boolean isLcalpha(char c) {
		return c >= 'a' && c <= 'z';
	}

	private static boolean isKeyChar(char c) {
		return isLcalpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*';
	}

	/** RFC 9110 tchar, plus ':' and '/' as RFC 9651 sf-token allows. */
	private static boolean isTokenChar(char c) {
		return (c < 0x80 && Character.isLetterOrDigit(c)) || "!#$%&'*+-.^_`|~:/".indexOf(c) >= 0;
	}

	/**
	 * An Item: a bare item and its parameters.
	 * @param value a {@link Long}, {@link BigDecimal}, {@link String}, {@link Token} or {@link Boolean}
	 * @param parameters the parameters, in order
	 */
	public record Item(Object value, Map<String, Object> parameters) {
	}

	/**
	 * An sf-token.
	 * @param text the token
	 */
	public record Token(String text) {
	}

}
