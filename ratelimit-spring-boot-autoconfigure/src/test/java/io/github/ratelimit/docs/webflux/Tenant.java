package io.github.ratelimit.docs.webflux;

/**
 * A tenant of the page's API.
 * @param id its id, the key its requests are counted under
 * @param apiKey the API key it sends in {@code X-Api-Key}
 */
record Tenant(String id, String apiKey) {

}
