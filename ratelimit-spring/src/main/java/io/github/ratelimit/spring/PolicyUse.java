package io.github.ratelimit.spring;

/**
 * A method that applies a policy through {@code @RateLimited}, with the key and cost it applies it with.
 *
 * @param method the method, such as {@code com.example.Orders.list}
 * @param key the key expression; when the annotation gives none, the policy's key strategy in an application with a
 * web stack, else the global key ({@code global}), which every call is counted under there
 * @param cost the cost expression or number, or the policy's cost when the annotation gives none
 */
public record PolicyUse(String method, String key, String cost) {
}
