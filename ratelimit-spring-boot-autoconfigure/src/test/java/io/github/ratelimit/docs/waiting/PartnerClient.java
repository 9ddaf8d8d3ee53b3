package io.github.ratelimit.docs.waiting;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.stereotype.Component;

/**
 * The waiting page's example: a client of a partner API that allows a shared rate, whose calls wait for their permit.
 */
@Component
class PartnerClient {

	private final HttpClient http = HttpClient.newHttpClient();

	// tag::client[]
	@RateLimited(value = "partner", maxWait = "2s") // wait up to 2 s for a permit, then throw as usual
	public String quote(String sku) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("https://partner.example/quotes/" + sku)).build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString()).body();
	}

	@RateLimited(value = "partner", maxWait = "2s") // waits without holding the caller's thread
	public CompletableFuture<String> quoteAsync(String sku) {
		HttpRequest request = HttpRequest.newBuilder(URI.create("https://partner.example/quotes/" + sku)).build();
		return this.http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(HttpResponse::body);
	}
	// end::client[]

}
