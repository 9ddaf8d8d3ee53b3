package io.github.ratelimit.spring.web;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link TwoStacks#assertAlike}: two responses whose waits in whole seconds straddle a second's end are alike; a wait
 * two seconds apart, or any other difference in status, a header line or the body, is not, unless the requests of a
 * pair were seen two seconds apart, when their waits may be too.
 */
class TwoStacksTests {

	@Test
	void waitsOneSecondApartAreAlike() {
		assertThatNoException().isThrownBy(() -> TwoStacks.assertAlike(refusal(1800, 20), refusal(1799, 19)));
		assertThatNoException().isThrownBy(() -> TwoStacks.assertAlike(refusal(1800, 10), refusal(1801, 9)));
	}

	@Test
	void waitsAsFarApartAsTheRequestsOfAPairWereAreAlike() {
		assertThatNoException().isThrownBy(() -> TwoStacks.assertAlike(refusal(1800, 20), refusal(1798, 18), 2));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> TwoStacks.assertAlike(refusal(1800, 20), refusal(1797, 20), 2))
			.withMessageContaining("wait");
	}

	@Test
	void waitsTwoSecondsApartAreNotAlike() {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> TwoStacks.assertAlike(refusal(1800, 20), refusal(1798, 20)))
			.withMessageContaining("wait");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> TwoStacks.assertAlike(refusal(1800, 20), refusal(1800, 22)))
			.withMessageContaining("wait");
	}

	@Test
	void anyOtherDifferenceIsNotAlike() {
		WireResponse refusal = refusal(1800, 20);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> TwoStacks.assertAlike(refusal,
				new WireResponse("HTTP/1.1 503 Service Unavailable", refusal.headers(), refusal.body())));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> TwoStacks.assertAlike(refusal,
				response(1800, 20, "\"orders\";r=1;t=1800", "Rate limit policy 'orders' (3/1m) exceeded")));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> TwoStacks.assertAlike(refusal,
				response(1800, 20, "\"orders\";r=0;t=1800", "Rate limit policy 'order' (3/1m) exceeded")));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> TwoStacks.assertAlike(refusal,
				new WireResponse(refusal.statusLine(), List.of(Map.entry("Retry-After", "1800")), refusal.body())));
	}

	@Test
	void aContentLengthOtherThanTheBodysIsNotAlike() {
		WireResponse refusal = refusal(1800, 20);
		List<Map.Entry<String, String>> headers = refusal.headers()
			.stream()
			.map((header) -> header.getKey().equals("Content-Length") ? Map.entry("Content-Length", "1") : header)
			.toList();
		assertThatExceptionOfType(AssertionError.class).isThrownBy(
				() -> TwoStacks.assertAlike(refusal, new WireResponse(refusal.statusLine(), headers, refusal.body())));
	}

	private static WireResponse refusal(long retryAfter, long retryIn) {
		return response(retryAfter, retryIn, "\"orders\";r=0;t=" + retryAfter,
				"Rate limit policy 'orders' (3/1m) exceeded");
	}

	private static WireResponse response(long retryAfter, long retryIn, String rateLimit, String detail) {
		String body = "{\"status\":429,\"detail\":\"" + detail + "; retry in " + retryIn + " s.\"}";
		return new WireResponse("HTTP/1.1 429 Too Many Requests", List.of(Map.entry("Retry-After", Long.toString(retryAfter)),
				Map.entry("RateLimit", rateLimit), Map.entry("X-RateLimit-Reset", Long.toString(retryAfter)),
				Map.entry("Content-Length", Integer.toString(body.getBytes(StandardCharsets.UTF_8).length))), body);
	}

}
