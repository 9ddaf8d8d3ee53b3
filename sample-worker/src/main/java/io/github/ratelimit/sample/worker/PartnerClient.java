package io.github.ratelimit.sample.worker;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.stereotype.Component;

/**
 * The partner API's client. The partner allows 20 calls a second from all of our instances together (policy
 * {@code partner} in {@code application.yml}): a call waits up to 2 s for its permit, in line with this instance's
 * other calls, then fails with a {@code RateLimitExceededException}. It returns a future, so a waiting call holds no
 * thread; the request goes out only once the call is admitted.
 */
@Component
public class PartnerClient {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final HttpRequest request;

	PartnerClient(WorkerProperties properties) {
		this.request = HttpRequest.newBuilder(properties.partnerUrl()).timeout(Duration.ofSeconds(10)).build();
	}

	/**
	 * Calls the partner API once its permit came.
	 * @return the partner's answer, or a {@code RateLimitExceededException} when no permit came within 2 s
	 */
	// tag::call[]
	@RateLimited(value = "partner", maxWait = "2s")
	public CompletableFuture<String> call() {
		return this.http.sendAsync(this.request, BodyHandlers.ofString()).thenApply(PartnerClient::body);
	}
	// end::call[]

	private static String body(HttpResponse<String> response) {
		if (response.statusCode() != 200) {
			throw new IllegalStateException("the partner API answered " + response.statusCode());
		}
		return response.body();
	}

}
