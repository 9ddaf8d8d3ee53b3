package io.github.ratelimit.spring.web;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.ratelimit.test.RateLimitHeaderNames;
import io.github.ratelimit.test.WireResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every rate limit response of the WebFlux filter, read on the wire from Reactor Netty: the rules of
 * {@link AbstractRateLimitResponsesTests}, the multi-limit 429 of docs/responses.md (every header but the server's
 * own, and the body, as Tomcat sends them).
 */
@SpringBootTest(classes = FilterTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "ratelimit.headers=both",
				"ratelimit.policies.tb.paths=/filtered/tb", "ratelimit.policies.tb.limits=2/1h",
				"ratelimit.policies.orders.paths=/api/orders", "ratelimit.policies.orders.limits=3/1m,100/1d",
				"ratelimit.policies.paced.paths=/api/paced", "ratelimit.policies.paced.limits=1/200ms",
				"ratelimit.policies.paced.max-wait=10s" })
class RateLimitResponsesWebFluxTests extends AbstractRateLimitResponsesTests {

	/** The headers of a refusal that are ours, not the server's ({@code Date}, {@code Connection}). */
	private static final List<String> OURS = List.of("Retry-After", "Content-Type", "Content-Length");

	@Test
	void aRequestOfAPolicyThatMayWaitShouldWaitForItsPermitWithoutBlockingTheEventLoop() throws IOException {
		long start = System.nanoTime(); // before the first permit: the second comes 200 ms after it
		assertThat(WireResponse.get(this.port, "/api/paced").status()).isEqualTo(200);
		WireResponse waited = WireResponse.get(this.port, "/api/paced");
		assertThat(waited.status()).isEqualTo(200);
		assertThat(waited.value("X-RateLimit-Remaining")).isEqualTo("0");
		// the second request waited for its permit, under BlockHound, no thread held
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
	}

	@Override
	void assertDocumented(WireResponse refused) throws IOException {
		String page = Files.readString(Path.of("../docs/responses.md"));
		assertThat(refused.statusLine()).startsWith("HTTP/1.1 429");
		for (String header : RateLimitHeaderNames.ALL) {
			assertThat(page).contains(header + ": " + refused.value(header));
		}
		for (String header : OURS) {
			assertThat(page).contains(header + ": " + refused.value(header));
		}
		assertThat(page).contains(refused.body());
	}

}
