package io.github.ratelimit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Plain HTTP calls to a running test server, as an operator's tools would make them.
 */
public final class HttpProbe {

	/**
	 * HTTP/1.1 only: the client's default, HTTP/2, asks every server to upgrade, and requests so sent to Reactor Netty
	 * (which serves HTTP/1.1 here) were seen to go unanswered.
	 */
	private final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final int port;

	public HttpProbe(int port) {
		this.port = port;
	}

	public HttpResponse<String> get(String path, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET();
		if (headers.length > 0) {
			request.headers(headers);
		}
		return send(request.build());
	}

	public HttpResponse<String> delete(String path) {
		return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).DELETE().build());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	private HttpResponse<String> send(HttpRequest request) {
		try {
			return this.client.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
