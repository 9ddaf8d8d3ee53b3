package io.github.ratelimit.spring.web;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every rate limit response of the servlet filter and of {@code @RateLimited}, read on the wire from Tomcat: the rules
 * of {@link AbstractRateLimitResponsesTests}, the multi-limit 429 of docs/responses.md exactly as sent, and the
 * refusal of a request that costs more than a capacity.
 */
@SpringBootTest(classes = ResponseTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.headers=both", "ratelimit.policies.tb.paths=/filtered/tb",
				"ratelimit.policies.tb.limits=2/1h", "ratelimit.policies.orders.paths=/api/orders",
				"ratelimit.policies.orders.limits=3/1m,100/1d" })
class RateLimitResponsesTests extends AbstractRateLimitResponsesTests {

	@Override
	void assertDocumented(WireResponse refused) throws IOException {
		assertThat(withoutDateAndTrailingSpaces(Files.readString(Path.of("../docs/responses.md"))))
			.as("the multi-limit 429 of docs/responses.md, exactly as sent")
			.contains(withoutDateAndTrailingSpaces(refused.toString()));
	}

	private static String withoutDateAndTrailingSpaces(String text) {
		return text.replaceAll("(?m)^Date: .*$", "Date: <date>").replaceAll("(?m)[ \t]+$", "");
	}

	@Test
	void requestCostingMoreThanACapacityShouldBeToldItCanNeverSucceed() {
		WireResponse overOne = ResponseHeaderRules.check(WireResponse.get(this.port, "/annotated/costly?cost=3"));
		assertThat(overOne.status()).isEqualTo(429);
		assertThat(overOne.value("Retry-After")).isNull();
		// refused without consuming anything: the client's state under the limit its cost exceeds, as it is (full)
		assertThat(overOne.value("RateLimit-Policy")).isEqualTo("\"costly-1m\";q=5;w=60, \"costly-1h\";q=2;w=3600");
		assertThat(overOne.value("RateLimit")).isEqualTo("\"costly-1h\";r=2;t=0");
		assertThat(overOne.value("X-RateLimit-Limit")).isEqualTo("2");
		assertThat(overOne.value("X-RateLimit-Remaining")).isEqualTo("2");
		assertThat(overOne.value("X-RateLimit-Reset")).isEqualTo("0");
		assertThat(ResponseHeaderRules.problem(overOne)).containsEntry("violated-policies", List.of("costly-1h"))
			.containsEntry("detail", "The request costs 3 permits, more than rate limit policy 'costly' ever allows"
					+ " (2/1h: at most 2 per 1h); retrying will not help.");
		WireResponse one = ResponseHeaderRules.check(WireResponse.get(this.port, "/annotated/costly?cost=1"));
		assertThat(one.value("RateLimit")).isEqualTo("\"costly-1h\";r=1;t=1800");
		WireResponse afterOne = ResponseHeaderRules.check(WireResponse.get(this.port, "/annotated/costly?cost=3"));
		assertThat(afterOne.status()).isEqualTo(429);
		assertThat(afterOne.value("Retry-After")).isNull();
		assertThat(afterOne.value("RateLimit")).matches("\"costly-1h\";r=1;t=(179[0-9]|1800)");
		assertThat(afterOne.value("X-RateLimit-Remaining")).isEqualTo("1");
		// a larger cost after it gets its own answer (such refusals are not kept in the deny cache)
		WireResponse overBoth = ResponseHeaderRules.check(WireResponse.get(this.port, "/annotated/costly?cost=11"));
		assertThat(overBoth.status()).isEqualTo(429);
		assertThat(overBoth.value("Retry-After")).isNull();
		assertThat(ResponseHeaderRules.problem(overBoth)).containsEntry("violated-policies",
				List.of("costly-1m", "costly-1h"));
		assertThat(ResponseHeaderRules.check(WireResponse.get(this.port, "/annotated/costly?cost=1")).status())
			.isEqualTo(200);
	}

}
