package io.github.ratelimit.gateway.webmvc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests to a running gateway over real HTTP, and the comparison of two answers: the same status, header lines
 * (all but {@code Date}) and body, but for the names the two routes differ by (policy and path) and for waits in whole
 * seconds ({@code Retry-After}, {@code X-RateLimit-Reset}, {@code t} of {@code RateLimit}, the wait the problem's
 * {@code detail} names), which may differ by one: the requests are made moments apart, and a wait rounded up to a
 * second can straddle a second's end between them.
 */
final class Wire {

	private static final HttpClient CLIENT = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	/** The headers whose whole value is a wait in seconds. */
	private static final Set<String> WAIT_HEADERS = Set.of("retry-after", "x-ratelimit-reset");

	/** A whole value. */
	private static final Pattern SECONDS = Pattern.compile("^\\d+$");

	/** The {@code t} parameter of {@code RateLimit}'s items. */
	private static final Pattern NEXT_PERMIT = Pattern.compile("(?<=;t=)\\d+");

	/** The wait the {@code detail} of a problem names. */
	private static final Pattern RETRY_IN = Pattern.compile("(?<=; retry in )\\d+(?= s\\.)");

	private Wire() {
	}

	static Answer send(int port, String method, String path, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.method(method, HttpRequest.BodyPublishers.noBody());
		if (headers.length > 0) {
			request.headers(headers);
		}
		try {
			HttpResponse<String> response = CLIENT.send(request.build(),
					HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
			return new Answer(response.statusCode(), response.headers().map(), response.body());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static Answer get(int port, String path, String... headers) {
		return send(port, "GET", path, headers);
	}

	/**
	 * Checks that a route answered as the reference did, once the route's names are replaced by the reference's.
	 * @param reference the answer of the servlet filter's {@code paths} policy
	 * @param route the answer of the route's filter
	 * @param names the names the route's answer has, each followed by the reference's name in its place
	 */
	static void assertAlike(Answer reference, Answer route, String... names) {
		String description = "route's\n" + route + "\nand the servlet filter's\n" + reference;
		assertThat(route.status()).as("status of the %s", description).isEqualTo(reference.status());
		List<Long> referenceWaits = new ArrayList<>();
		List<Long> routeWaits = new ArrayList<>();
		assertThat(route.comparable(routeWaits, names)).as("headers and body of the %s", description)
			.isEqualTo(reference.comparable(referenceWaits));
		for (int i = 0; i < referenceWaits.size(); i++) {
			assertThat(routeWaits.get(i)).as("wait %d of the %s", i + 1, description)
				.isBetween(referenceWaits.get(i) - 1, referenceWaits.get(i) + 1);
		}
	}

	/**
	 * An answer as read on the wire.
	 * @param status the status
	 * @param headers the header lines by name
	 * @param body the body
	 */
	record Answer(int status, Map<String, List<String>> headers, String body) {

		String value(String name) {
			return this.headers.entrySet().stream()
				.filter((header) -> header.getKey().equalsIgnoreCase(name))
				.map((header) -> String.join(", ", header.getValue()))
				.findFirst()
				.orElse(null);
		}

		/**
		 * The header lines but {@code Date} (names in lower case, in order of name) and the body, the names replaced
		 * and the waits taken out, and the {@code Content-Length} checked against the body.
		 */
		String comparable(List<Long> waits, String... names) {
			StringBuilder text = new StringBuilder();
			this.headers.entrySet().stream()
				.filter((header) -> header.getKey() != null && !header.getKey().equalsIgnoreCase("date"))
				.sorted(Map.Entry.comparingByKey(String.CASE_INSENSITIVE_ORDER))
				.forEach((header) -> header.getValue().forEach((value) -> {
					String name = header.getKey().toLowerCase(Locale.ROOT);
					if (name.equals("content-length")) {
						assertThat(value).as("Content-Length of\n%s", this)
							.isEqualTo(Integer.toString(this.body.getBytes(StandardCharsets.UTF_8).length));
						value = "<length of the body>";
					}
					text.append(name).append(": ").append(takeOutWaits(name, rename(value, names), waits)).append('\n');
				}));
			return text.append('\n').append(takeOut(RETRY_IN, rename(this.body, names), waits)).toString();
		}

		private static String takeOutWaits(String name, String value, List<Long> waits) {
			if (WAIT_HEADERS.contains(name)) {
				return takeOut(SECONDS, value, waits);
			}
			return name.equals("ratelimit") ? takeOut(NEXT_PERMIT, value, waits) : value;
		}

		private static String rename(String text, String... names) {
			String renamed = text;
			for (int i = 0; i < names.length; i += 2) {
				renamed = renamed.replace(names[i], names[i + 1]);
			}
			return renamed;
		}

		private static String takeOut(Pattern wait, String text, List<Long> waits) {
			Matcher matcher = wait.matcher(text);
			StringBuilder rest = new StringBuilder();
			while (matcher.find()) {
				waits.add(Long.parseLong(matcher.group()));
				matcher.appendReplacement(rest, "<wait>");
			}
			return matcher.appendTail(rest).toString();
		}

		@Override
		public String toString() {
			return this.status + " " + this.headers + "\n" + this.body;
		}

	}

}
