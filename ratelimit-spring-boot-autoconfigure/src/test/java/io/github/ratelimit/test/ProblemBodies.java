package io.github.ratelimit.test;

import java.util.Map;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.test.web.servlet.assertj.MvcTestResult;

/**
 * Reads the RFC 9457 problem body of a MockMvc or WebTestClient response.
 */
public final class ProblemBodies {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private ProblemBodies() {
	}

	/**
	 * The members of a response's problem body.
	 * @param result the response
	 * @return the members, by name
	 */
	public static Map<String, Object> of(MvcTestResult result) {
		return of(result.getResponse().getContentAsByteArray());
	}

	/**
	 * The members of a problem body.
	 * @param body the body
	 * @return the members, by name
	 */
	public static Map<String, Object> of(byte[] body) {
		return MAPPER.readValue(body, new TypeReference<>() {
		});
	}

}
