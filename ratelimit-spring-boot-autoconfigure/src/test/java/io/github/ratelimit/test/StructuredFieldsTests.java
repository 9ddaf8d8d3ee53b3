package io.github.ratelimit.test;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.test.StructuredFields.Item;
import io.github.ratelimit.test.StructuredFields.Token;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests that {@link StructuredFields} accepts the RFC 9651 Lists rate limit headers use, and nothing malformed.
 */
class StructuredFieldsTests {

	@Test
	void parsesAListOfStringItemsWithIntegerParameters() {
		assertThat(StructuredFields.parseList("\"orders-1m\";q=10;w=60, \"orders-1d\";q=500;w=86400")).containsExactly(
				new Item("orders-1m", Map.of("q", 10L, "w", 60L)),
				new Item("orders-1d", Map.of("q", 500L, "w", 86400L)));
	}

	@Test
	void parsesEveryBareItemOfTheSupportedGrammar() {
		List<Item> items = StructuredFields.parseList("  \"a \\\"b\\\\\";t=-3, tok/en:x;flag, 1.25;d=?0 ,?1;*k=x  ");
		assertThat(items).containsExactly(new Item("a \"b\\", Map.of("t", -3L)),
				new Item(new Token("tok/en:x"), Map.of("flag", true)),
				new Item(new BigDecimal("1.25"), Map.of("d", false)), new Item(true, Map.of("*k", new Token("x"))));
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"a\",", "\"a\";Q=1", "\"a\";q=1;q=2", "\"a\" \"b\"", "\"unterminated",
			"\"a\\nb\"", "\"é\"", "(\"inner\")", ":YWJj:", "\"a\";q=1234567890123456", "1.2345", "\"a\";q=",
			",\"a\"", "\"a\",,\"b\"", "?2", "\"a\";q=1 ;w=2" })
	void refusesWhatTheGrammarDoesNotAllow(String value) {
		assertThatIllegalArgumentException().isThrownBy(() -> StructuredFields.parseList(value));
	}

}
