package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimiterUnavailableException;
import io.github.ratelimit.test.StructuredFields;
import io.github.ratelimit.test.StructuredFields.Item;
import io.github.ratelimit.test.WireResponse;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules every response of ours keeps, checked on a response as it was sent: each rate limit header parses
 * (the {@code ietf} ones as RFC 9651 Lists, with a strict parser), item names are unique, {@code RateLimit} names an
 * item of {@code RateLimit-Policy}, {@code q}, {@code w}, {@code r} and {@code t} are non-negative integers, the legacy
 * headers agree with them, a 429's {@code Retry-After} is never earlier than {@code t}, and a refusal's problem body
 * names refused items that the response lists. A 400 (a {@code @RateLimited} cost that is no whole number) decided no
 * limit and says so with a problem body alone.
 */
final class ResponseHeaderRules {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final String[] LEGACY = { "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset" };

	private ResponseHeaderRules() {
	}

	/**
	 * Checks every rule on a response.
	 * @param response the response
	 * @return the response
	 */
	static WireResponse check(WireResponse response) {
		List<Item> policy = policyItems(response);
		Item limit = limitItem(response, policy);
		String retryAfter = response.value("Retry-After");
		checkLegacy(response, policy, limit);
		if (retryAfter != null) {
			assertThat(retryAfter).as("Retry-After of %s", response).matches("[1-9][0-9]*");
		}
		switch (response.status()) {
			case 200 -> assertThat(retryAfter).as("Retry-After of an admitted response").isNull();
			case 429 -> {
				if (retryAfter == null) {
					// a request no wait can help, which consumed nothing: its state is told, no wait
					assertThat((String) problem(response).get("detail")).as("detail of %s", response)
						.endsWith("retrying will not help.");
				}
				if (!policy.isEmpty()) {
					assertThat(limit).as("RateLimit of a refusal in %s", response).isNotNull();
				}
				checkRefusal(response, policy, limit, retryAfter, RateLimitExceededException.QUOTA_EXCEEDED);
			}
			case 503 -> {
				assertThat(retryAfter).as("Retry-After of a 503").isNotNull();
				assertThat(response.values("RateLimit")).as("a 503 decided no limit").isEmpty();
				checkRefusal(response, policy, limit, retryAfter, RateLimiterUnavailableException.TEMPORARY_REDUCED_CAPACITY);
			}
			case 400 -> {
				assertThat(retryAfter).as("Retry-After of a 400").isNull();
				assertThat(policy).as("RateLimit-Policy of a 400, which decided no limit").isEmpty();
				assertThat(response.value("X-RateLimit-Limit")).as("X-RateLimit-Limit of a 400").isNull();
				assertThat(response.value("Content-Type")).startsWith("application/problem+json");
				assertThat(problem(response)).containsEntry("status", 400);
			}
			default -> throw new AssertionError("Unexpected status of " + response);
		}
		return response;
	}

	/**
	 * The names of the items of a response's {@code RateLimit-Policy}.
	 */
	static List<String> policyNames(WireResponse response) {
		return policyItems(response).stream().map((item) -> (String) item.value()).toList();
	}

	/**
	 * The name of the item of a response's {@code RateLimit}.
	 */
	static String limitName(WireResponse response) {
		return (String) limitItem(response, policyItems(response)).value();
	}

	/**
	 * The members of a refusal's problem body.
	 */
	static Map<String, Object> problem(WireResponse response) {
		return JSON.readValue(response.body(), new TypeReference<>() {
		});
	}

	private static List<Item> policyItems(WireResponse response) {
		String value = response.value("RateLimit-Policy");
		if (value == null) {
			return List.of();
		}
		List<Item> items = StructuredFields.parseList(value);
		assertThat(items).as("items of %s", value).isNotEmpty();
		Set<String> names = new HashSet<>();
		for (Item item : items) {
			assertThat(item.value()).as("item name in %s", value).isInstanceOf(String.class);
			assertThat(names.add((String) item.value())).as("unique item names in %s", value).isTrue();
			assertThat(item.parameters()).as("parameters in %s", value).containsOnlyKeys("q", "w");
			assertThat(nonNegative(item, "q")).as("q in %s", value).isPositive();
			assertThat(nonNegative(item, "w")).as("w in %s", value).isPositive();
		}
		return items;
	}

	private static Item limitItem(WireResponse response, List<Item> policy) {
		String value = response.value("RateLimit");
		if (value == null) {
			return null;
		}
		assertThat(policy).as("RateLimit-Policy beside RateLimit in %s", response).isNotEmpty();
		List<Item> items = StructuredFields.parseList(value);
		assertThat(items).as("items of %s", value).hasSize(1);
		Item item = items.get(0);
		assertThat(item.parameters()).as("parameters in %s", value).containsOnlyKeys("r", "t");
		Item listed = policy.stream().filter((candidate) -> candidate.value().equals(item.value())).findFirst()
			.orElseThrow(() -> new AssertionError("RateLimit item " + item.value() + " is not in RateLimit-Policy of "
					+ response));
		assertThat(nonNegative(item, "r")).as("r in %s", value).isLessThanOrEqualTo(nonNegative(listed, "q"));
		nonNegative(item, "t");
		return item;
	}

	private static void checkLegacy(WireResponse response, List<Item> policy, Item limit) {
		List<String> sent = new ArrayList<>();
		for (String header : LEGACY) {
			String value = response.value(header);
			if (value != null) {
				assertThat(value).as("%s of %s", header, response).matches("0|[1-9][0-9]*");
				sent.add(header);
			}
		}
		assertThat(sent.size()).as("legacy headers of %s, all or none", response).isIn(0, LEGACY.length);
		if (limit != null && !sent.isEmpty()) {
			Item listed = policy.stream().filter((candidate) -> candidate.value().equals(limit.value())).findFirst()
				.orElseThrow();
			assertThat(Long.parseLong(response.value("X-RateLimit-Limit"))).isEqualTo(listed.parameters().get("q"));
			assertThat(Long.parseLong(response.value("X-RateLimit-Remaining")))
				.isEqualTo(limit.parameters().get("r"));
		}
	}

	private static void checkRefusal(WireResponse response, List<Item> policy, Item limit, String retryAfter,
			String type) {
		assertThat(response.value("Content-Type")).startsWith("application/problem+json");
		if (limit != null && retryAfter != null) {
			assertThat(Long.parseLong(retryAfter)).as("Retry-After against t in %s", response)
				.isGreaterThanOrEqualTo((Long) limit.parameters().get("t"));
		}
		Map<String, Object> problem = problem(response);
		assertThat(problem).containsEntry("type", type).containsEntry("status", response.status()).containsKey("policy");
		assertThat(problem.get("violated-policies")).as("violated-policies of %s", response).isInstanceOf(List.class);
		List<String> violated = ((List<?>) problem.get("violated-policies")).stream().map(String.class::cast).toList();
		assertThat(violated).isNotEmpty().doesNotHaveDuplicates();
		if (!policy.isEmpty()) {
			List<String> names = policy.stream().map((item) -> (String) item.value()).toList();
			assertThat(names).as("items of %s", response).containsAll(violated);
			if (limit != null) {
				assertThat(violated).as("violated-policies of %s", response).contains((String) limit.value());
			}
		}
	}

	private static long nonNegative(Item item, String parameter) {
		Object value = item.parameters().get(parameter);
		assertThat(value).as("parameter %s of %s", parameter, item).isInstanceOf(Long.class);
		assertThat((Long) value).as("parameter %s of %s", parameter, item).isNotNegative();
		return (Long) value;
	}

}
