package io.github.ratelimit.resilience;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.redis.RedisClientOverrides;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose overrides' poller reads a real Redis stops without a warning: the poller stops before Spring
 * Data Redis' connection factory does, and a poll that the stop cuts short is no failure to warn of. Polling every
 * millisecond, so that a poll is in flight, or due, while the application stops.
 */
@ExtendWith(OutputCaptureExtension.class)
class OverridesPollerShutdownTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues(TestRedisProperties.values())
		.withPropertyValues("ratelimit.overrides.refresh-interval=1ms", "ratelimit.policies.hello.limits=5/1h",
				"ratelimit.policies.hello.paths=/hello");

	@Test
	void stoppingAnApplicationWhileItsPollerPollsShouldWarnOfNothing(CapturedOutput output) {
		for (int i = 0; i < 10; i++) {
			this.runner.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(RedisClientOverrides.class);
			});
		}
		assertThat(output.getOut().lines().filter((line) -> line.contains(" WARN "))).isEmpty();
	}

}
