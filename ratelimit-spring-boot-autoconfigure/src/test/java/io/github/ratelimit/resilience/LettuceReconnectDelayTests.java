package io.github.ratelimit.resilience;

import java.time.Duration;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After a long outage, exact limiting resumes within about a second of Redis coming back, not after Lettuce's default
 * reconnect backoff of up to 30 s.
 */
class LettuceReconnectDelayTests {

	@Test
	void reconnectAttemptsAreNeverMoreThanASecondApart() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory")
			.run((context) -> {
				ClientResourcesBuilderCustomizer customizer = context.getBean("rateLimitReconnectDelay",
						ClientResourcesBuilderCustomizer.class);
				ClientResources.Builder builder = ClientResources.builder();
				customizer.customize(builder);
				ClientResources resources = builder.build();
				try {
					assertThat(resources.reconnectDelay().createDelay(1)).isLessThan(Duration.ofMillis(100));
					for (long attempt = 1; attempt < 64; attempt++) {
						assertThat(resources.reconnectDelay().createDelay(attempt))
							.isLessThanOrEqualTo(Duration.ofSeconds(1));
					}
				}
				finally {
					resources.shutdown();
				}
			});
	}

	@Test
	void lettucesOwnDefaultWaitsUpToThirtySeconds() {
		ClientResources resources = ClientResources.create();
		try {
			assertThat(resources.reconnectDelay().createDelay(40)).isEqualTo(Duration.ofSeconds(30));
		}
		finally {
			resources.shutdown();
		}
	}

}
