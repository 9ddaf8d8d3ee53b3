package io.github.ratelimit.docs.plansandoverrides;

/**
 * A customer of the page's paid API, on one plan.
 * @param apiKey the API key it sends in {@code X-Api-Key}
 * @param plan its plan's name
 */
record Customer(String apiKey, String plan) {

}
