package io.github.ratelimit.spring.web;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ratelimit.test.OwnReactorResources;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One application on both web stacks, started with the same properties: Spring MVC on Tomcat and WebFlux on Netty,
 * each under a key prefix of its own, so both start from fresh state. The same request sent to both must get the
 * same response: the same status, the same headers (all but {@code Date}) and the same body, byte for byte, but for
 * the waits in whole seconds ({@code Retry-After}, {@code X-RateLimit-Reset}, {@code t} of {@code RateLimit} and the
 * wait the problem's {@code detail} names), which may differ by one: the two requests are made moments apart, and a
 * wait rounded up to a second can straddle a second's end between them. Should a busy machine hold the two requests of
 * one pair more than a second apart, the waits may differ by as many seconds as that took, rounded up, and no more: a
 * wait counts down from the moment its limit was last charged on its own stack, so two stacks' waits differ by at
 * most the longest time between the requests of a pair so far. Each response must also keep
 * {@link ResponseHeaderRules}.
 */
final class TwoStacks implements AutoCloseable {

	private final RunningServer mvc;

	private final RunningServer webFlux;

	/** The longest time, so far, from sending a request to MVC to WebFlux's answer to it. */
	private long longestPairNanos;

	private TwoStacks(RunningServer mvc, RunningServer webFlux) {
		this.mvc = mvc;
		this.webFlux = webFlux;
	}

	/**
	 * Starts both applications, each a {@link ContractTestApplication} with its controller.
	 * @param mvcController the controller of the Spring MVC application
	 * @param webFluxController the controller of the WebFlux application
	 * @param properties {@code name=value} pairs given to both
	 * @return both running applications
	 */
	static TwoStacks start(Class<?> mvcController, Class<?> webFluxController, String... properties) {
		RunningServer servlet = RunningServer.start(WebApplicationType.SERVLET,
				new Class<?>[] { ContractTestApplication.class, mvcController }, withOwnKeyPrefix(properties));
		try {
			RunningServer reactive = RunningServer.start(WebApplicationType.REACTIVE,
					new Class<?>[] { ContractTestApplication.class, webFluxController, OwnReactorResources.class },
					withOwnKeyPrefix(properties));
			assertThat(servlet.webServer()).isEqualTo("TomcatWebServer");
			assertThat(reactive.webServer()).isEqualTo("NettyWebServer");
			return new TwoStacks(servlet, reactive);
		}
		catch (RuntimeException | AssertionError ex) {
			servlet.close();
			throw ex;
		}
	}

	private static String[] withOwnKeyPrefix(String... properties) {
		List<String> all = new ArrayList<>(List.of(properties));
		all.add("ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix());
		return all.toArray(String[]::new);
	}

	/**
	 * Sends {@code GET path} to the Spring MVC application, then to the WebFlux one, and checks that they answer
	 * alike.
	 * @param path the path and query
	 * @return the WebFlux application's response
	 */
	WireResponse get(String path) {
		long start = System.nanoTime();
		WireResponse mvc = ResponseHeaderRules.check(WireResponse.get(this.mvc.port(), path));
		WireResponse webFlux = ResponseHeaderRules.check(WireResponse.get(this.webFlux.port(), path));
		this.longestPairNanos = Math.max(this.longestPairNanos, System.nanoTime() - start);
		assertAlike(mvc, webFlux, Math.max(1, (this.longestPairNanos + 999_999_999) / 1_000_000_000));
		return webFlux;
	}

	/**
	 * Checks that the WebFlux application answered as the Spring MVC one did: the same status, header lines and body,
	 * but for waits in whole seconds, each within one second of the other's.
	 * @param mvc the Spring MVC application's response
	 * @param webFlux the WebFlux application's response
	 */
	static void assertAlike(WireResponse mvc, WireResponse webFlux) {
		assertAlike(mvc, webFlux, 1);
	}

	/**
	 * Checks that the WebFlux application answered as the Spring MVC one did: the same status, header lines and body,
	 * but for waits in whole seconds, each within some seconds of the other's.
	 * @param mvc the Spring MVC application's response
	 * @param webFlux the WebFlux application's response
	 * @param seconds how far apart the waits may be
	 */
	static void assertAlike(WireResponse mvc, WireResponse webFlux, long seconds) {
		assertThat(webFlux.status()).as("status of WebFlux's\n%s\nand of MVC's\n%s", webFlux, mvc)
			.isEqualTo(mvc.status());
		Compared expected = Compared.of(mvc);
		Compared actual = Compared.of(webFlux);
		assertThat(actual.headers()).as("headers of WebFlux's\n%s\nand of MVC's\n%s", webFlux, mvc)
			.isEqualTo(expected.headers());
		assertThat(actual.body()).as("body of WebFlux's\n%s\nand of MVC's\n%s", webFlux, mvc)
			.isEqualTo(expected.body());
		for (int i = 0; i < expected.waits().size(); i++) {
			assertThat(actual.waits().get(i))
				.as("wait %d of WebFlux's\n%s\nand of MVC's\n%s\n(%d s apart at most)", i + 1, webFlux, mvc, seconds)
				.isBetween(expected.waits().get(i) - seconds, expected.waits().get(i) + seconds);
		}
	}

	/**
	 * What two responses must have alike: every header line but {@code Date}, with names in lower case (HTTP names are
	 * case-insensitive), in order of name, the lines of one name in the order sent, and the body, each with its waits
	 * in whole seconds taken out ({@link #WAIT}), and those waits in the order they were found. A
	 * {@code Content-Length} is checked against the body here, since a wait of other digits changes it.
	 *
	 * @param headers the header lines, waits taken out
	 * @param body the body, waits taken out
	 * @param waits the waits taken out, in seconds
	 */
	private record Compared(List<Map.Entry<String, String>> headers, String body, List<Long> waits) {

		/** What stands in for a wait taken out. */
		private static final String WAIT = "<wait>";

		/** The headers that are a wait in seconds. */
		private static final Set<String> WAIT_HEADERS = Set.of("retry-after", "x-ratelimit-reset");

		/** The whole of such a header. */
		private static final Pattern SECONDS = Pattern.compile("^\\d+$");

		/** The {@code t} parameter of {@code RateLimit}'s items. */
		private static final Pattern NEXT_PERMIT = Pattern.compile("(?<=;t=)\\d+");

		/** The wait the {@code detail} of a problem names. */
		private static final Pattern RETRY_IN = Pattern.compile("(?<=; retry in )\\d+(?= s\\.)");

		static Compared of(WireResponse response) {
			List<Map.Entry<String, String>> sent = response.headers()
				.stream()
				.filter((header) -> !header.getKey().equalsIgnoreCase("Date"))
				.map((header) -> Map.entry(header.getKey().toLowerCase(Locale.ROOT), header.getValue()))
				.sorted(Map.Entry.comparingByKey(Comparator.naturalOrder()))
				.toList();
			List<Long> waits = new ArrayList<>();
			List<Map.Entry<String, String>> headers = new ArrayList<>();
			for (Map.Entry<String, String> header : sent) {
				headers.add(Map.entry(header.getKey(), takeOutWaits(response, header, waits)));
			}
			String body = takeOut(RETRY_IN, response.body(), waits);
			return new Compared(List.copyOf(headers), body, List.copyOf(waits));
		}

		private static String takeOutWaits(WireResponse response, Map.Entry<String, String> header,
				List<Long> waits) {
			String name = header.getKey();
			if (WAIT_HEADERS.contains(name)) {
				return takeOut(SECONDS, header.getValue(), waits);
			}
			if (name.equals("ratelimit")) {
				return takeOut(NEXT_PERMIT, header.getValue(), waits);
			}
			if (name.equals("content-length")) {
				assertThat(header.getValue()).as("Content-Length of\n%s", response)
					.isEqualTo(Integer.toString(response.body().getBytes(StandardCharsets.UTF_8).length));
				return "<length of the body>";
			}
			return header.getValue();
		}

		private static String takeOut(Pattern wait, String text, List<Long> waits) {
			Matcher matcher = wait.matcher(text);
			StringBuilder rest = new StringBuilder();
			while (matcher.find()) {
				waits.add(Long.parseLong(matcher.group()));
				matcher.appendReplacement(rest, WAIT);
			}
			return matcher.appendTail(rest).toString();
		}

	}

	@Override
	public void close() {
		try {
			this.webFlux.close();
		}
		finally {
			this.mvc.close();
		}
	}

}
