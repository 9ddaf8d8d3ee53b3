package io.github.ratelimit.spring;

/**
 * A method that applies a policy through {@code @RateLimited}, with the key and cost it applies it with.
 *
 * @param method the method, such as {@code com.example.Orders.list}
 * @param key the key expression, or the policy's key strategy when the annotation gives none
 * @param cost the cost expression or number, or the policy's cost when the annotation gives none
 */
public record PolicyUse(String method, String key, String cost) {
}
