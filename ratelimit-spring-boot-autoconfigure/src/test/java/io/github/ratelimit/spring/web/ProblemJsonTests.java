package io.github.ratelimit.spring.web;

import java.net.URI;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that {@link ProblemJson} writes a problem exactly as Spring MVC renders it with Jackson, whatever the text
 * holds.
 */
class ProblemJsonTests {

	private final JsonMapper jackson = JsonMapper.builder()
		.addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class)
		.build();

	@Test
	void problemIsTheJsonSpringRendersWithEveryMember() {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				"Rate limit policy 'a\"b\\c' (5/10s) exceeded;\nretry in 2 s.\t\u0001 ünïcode");
		problem.setType(URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded"));
		problem.setTitle("Too Many Requests");
		problem.setInstance(URI.create("/api/hello?x=1"));
		problem.setProperty("policy", "a\"b\\c");
		problem.setProperty("violated-policies", List.of("orders-1m", "orders-1d"));
		problem.setProperty("limit", 5);
		problem.setProperty("shadow", false);
		assertSameAsSpring(problem);
	}

	@Test
	void absentInstanceAndTitleAreLeftOutAsSpringLeavesThemOut() {
		assertSameAsSpring(ProblemDetail.forStatus(HttpStatus.SERVICE_UNAVAILABLE));
	}

	private void assertSameAsSpring(ProblemDetail problem) {
		JsonNode ours = this.jackson.readTree(ProblemJson.of(problem));
		JsonNode spring = this.jackson.readTree(this.jackson.writeValueAsString(problem));
		assertThat(ours).isEqualTo(spring);
	}

}
