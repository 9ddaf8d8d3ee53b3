package io.github.ratelimit.resilience;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After a long outage, exact limiting resumes within about a second of Redis coming back, not after Lettuce's default
 * reconnect backoff of up to 30 s; {@code ratelimit.redis.max-reconnect-delay} changes the cap or, at 0, leaves
 * Lettuce alone.
 */
class LettuceReconnectDelayTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void reconnectAttemptsAreNeverMoreThanASecondApart() {
		assertDelay((delay) -> {
			assertThat(delay.createDelay(1)).isLessThan(Duration.ofMillis(100));
			for (long attempt = 1; attempt < 64; attempt++) {
				assertThat(delay.createDelay(attempt)).isLessThanOrEqualTo(Duration.ofSeconds(1));
			}
		});
	}

	@Test
	void theCapIsAProperty() {
		assertDelay((delay) -> {
			assertThat(delay.createDelay(1)).isLessThan(Duration.ofMillis(100));
			assertThat(delay.createDelay(40)).isEqualTo(Duration.ofSeconds(5));
		}, "ratelimit.redis.max-reconnect-delay=5s");
	}

	@Test
	void aCapShorterThanTheFirstDelayIsConstant() {
		assertDelay((delay) -> {
			assertThat(delay.createDelay(1)).isEqualTo(Duration.ofMillis(5));
			assertThat(delay.createDelay(40)).isEqualTo(Duration.ofMillis(5));
		}, "ratelimit.redis.max-reconnect-delay=5ms");
	}

	@Test
	void zeroLeavesLettucesOwnBackoffAlone() {
		assertDelay((delay) -> assertThat(delay.createDelay(40)).isEqualTo(Duration.ofSeconds(30)),
				"ratelimit.redis.max-reconnect-delay=0");
	}

	@Test
	void lettucesOwnDefaultWaitsUpToThirtySeconds() {
		customizedDelay((builder) -> {
		}, (delay) -> assertThat(delay.createDelay(40)).isEqualTo(Duration.ofSeconds(30)));
	}

	private void assertDelay(Consumer<Delay> assertions, String... properties) {
		this.runner.withPropertyValues(properties)
			.run((context) -> customizedDelay(
					context.getBean("rateLimitReconnectDelay", ClientResourcesBuilderCustomizer.class), assertions));
	}

	private static void customizedDelay(ClientResourcesBuilderCustomizer customizer, Consumer<Delay> assertions) {
		ClientResources.Builder builder = ClientResources.builder();
		customizer.customize(builder);
		ClientResources resources = builder.build();
		try {
			assertions.accept(resources.reconnectDelay());
		}
		finally {
			resources.shutdown();
		}
	}

}
