package io.github.ratelimit.classpath;

import java.net.http.HttpResponse;
import java.util.List;

import com.jayway.jsonpath.JsonPath;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a refusal by a scenario's {@code 3/1h} policy looks like over HTTP, on every stack: 429 with
 * {@code Retry-After}, the rate limit headers and the RFC 9457 problem body.
 */
public final class Refusals {

	private Refusals() {
	}

	/**
	 * Asserts that a response is the refusal of a request by a token bucket of {@code 3/1h} whose permits are used up.
	 * @param refused the response
	 * @param policy the policy's name
	 * @param path the request's path
	 */
	@SuppressWarnings("unchecked")
	public static void assertQuotaExceeded(HttpResponse<String> refused, String policy, String path) {
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		// a token bucket of 3/1h gains a permit every 1200 s, counted from the first request (on a slow machine,
		// seconds before this one)
		assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
				(seconds) -> assertThat(Long.parseLong(seconds)).isBetween(1080L, 1200L));
		assertThat(refused.headers().firstValue("RateLimit")).hasValueSatisfying(
				(value) -> assertThat(value).matches("\"" + policy + "\";r=0;t=(10[89][0-9]|11[0-9][0-9]|1200)"));
		assertThat(refused.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
		String body = refused.body();
		assertThat((String) JsonPath.read(body, "$.type"))
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
		assertThat((Integer) JsonPath.read(body, "$.status")).isEqualTo(429);
		assertThat((String) JsonPath.read(body, "$.instance")).isEqualTo(path);
		assertThat((String) JsonPath.read(body, "$.policy")).isEqualTo(policy);
		assertThat((List<String>) JsonPath.read(body, "$.violated-policies")).containsExactly(policy);
	}

}
