package io.github.ratelimit.test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import javax.net.ssl.SSLSession;

/**
 * Plain HTTP calls to a running test server, as an operator's tools would make them: each on a connection of its
 * own, closed after the response ({@link WireResponse}). Java's {@code HttpClient}, which keeps connections alive,
 * saw some of its requests to Reactor Netty go unanswered in these tests.
 */
public final class HttpProbe {

	private final int port;

	public HttpProbe(int port) {
		this.port = port;
	}

	public HttpResponse<String> get(String path, String... headers) {
		return send("GET", path, headers);
	}

	public HttpResponse<String> delete(String path) {
		return send("DELETE", path);
	}

	/**
	 * Sends {@code POST path} with a JSON body.
	 * @param path the path
	 * @param json the body
	 * @return the response
	 */
	public HttpResponse<String> post(String path, String json) {
		return new Response(URI.create("http://127.0.0.1:" + this.port + path),
				WireResponse.sendJson(this.port, "POST", path, json));
	}

	private HttpResponse<String> send(String method, String path, String... headers) {
		return new Response(URI.create("http://127.0.0.1:" + this.port + path),
				WireResponse.send(this.port, method, path, headers));
	}

	private record Response(URI uri, WireResponse wire) implements HttpResponse<String> {

		@Override
		public int statusCode() {
			return this.wire.status();
		}

		@Override
		public HttpRequest request() {
			return HttpRequest.newBuilder(this.uri).build();
		}

		@Override
		public Optional<HttpResponse<String>> previousResponse() {
			return Optional.empty();
		}

		@Override
		public HttpHeaders headers() {
			Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
			this.wire.headers().forEach((header) -> headers.computeIfAbsent(header.getKey(), this.wire::values));
			return HttpHeaders.of(headers, (name, value) -> true);
		}

		@Override
		public String body() {
			return this.wire.body();
		}

		@Override
		public Optional<SSLSession> sslSession() {
			return Optional.empty();
		}

		@Override
		public HttpClient.Version version() {
			return HttpClient.Version.HTTP_1_1;
		}

	}

}
