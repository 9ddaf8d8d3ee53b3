package io.github.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that start-up warns once when {@code server.forward-headers-strategy} lets clients choose the address an
 * {@code ip} policy counts them by ({@code framework} anywhere, {@code native} too on Reactor Netty), with advice for
 * the server at hand, and stays quiet otherwise.
 */
@ExtendWith(OutputCaptureExtension.class)
class ForwardedHeadersWarningTests {

	private static final String WARNING = "server.forward-headers-strategy=framework takes the client's address";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.hello.paths=/api/hello",
				"ratelimit.policies.hello.limits=5/10s", "ratelimit.policies.orders.paths=/api/orders",
				"ratelimit.policies.orders.limits=10/1m", "ratelimit.policies.orders.key=header:X-Api-Key");

	@Test
	void frameworkStrategyWithAnIpPolicyShouldWarnOnceNamingThePolicyAndTheSafeSetting(CapturedOutput output) {
		this.contextRunner.withPropertyValues("server.forward-headers-strategy=framework").run((context) -> {
			assertThat(context).hasSingleBean(ForwardedHeadersWarning.class);
			assertThat(output.getOut().lines().filter((line) -> line.contains(WARNING))).singleElement()
				.satisfies((line) -> assertThat(line).contains(" WARN ")
					.contains("rate limit policies hello count each address")
					.contains("server.forward-headers-strategy=native")
					.contains("server.tomcat.remoteip.internal-proxies")
					.contains("'Keys and proxies' in docs/keys.md"));
		});
	}

	@Test
	void frameworkStrategyWrittenInCapitalsShouldWarnToo(CapturedOutput output) {
		this.contextRunner.withPropertyValues("server.forward-headers-strategy=FRAMEWORK")
			.run((context) -> assertThat(output).contains(WARNING));
	}

	@Test
	void frameworkStrategyWithoutIpPoliciesShouldNotWarn(CapturedOutput output) {
		this.contextRunner.withPropertyValues("server.forward-headers-strategy=framework",
				"ratelimit.policies.hello.key=global")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain(WARNING);
			});
	}

	@Test
	void nativeStrategyShouldNotWarnOutsideReactorNetty(CapturedOutput output) {
		this.contextRunner.withPropertyValues("server.forward-headers-strategy=native").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("server.forward-headers-strategy=native");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "native", "framework" })
	void strategyThatTrustsEveryConnectionOnReactorNettyShouldWarnWithAdviceForIt(String strategy,
			CapturedOutput output) {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.hello.paths=/api/hello",
					"ratelimit.policies.hello.limits=5/10s", "server.forward-headers-strategy=" + strategy)
			.run((context) -> assertThat(output.getOut().lines()
				.filter((line) -> line.contains("server.forward-headers-strategy=" + strategy + " on Reactor Netty")))
				.singleElement()
				.satisfies((line) -> assertThat(line).contains(" WARN ")
					.contains("rate limit policies hello count each address")
					.contains("NettyServerCustomizer")
					.contains("'Keys and proxies' in docs/keys.md")
					.doesNotContain("server.tomcat")));
	}

	@Test
	void noneStrategyShouldNotWarnOnReactorNetty(CapturedOutput output) {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.hello.paths=/api/hello",
					"ratelimit.policies.hello.limits=5/10s", "server.forward-headers-strategy=none")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain("server.forward-headers-strategy");
			});
	}

	@Test
	void noStrategyShouldNotWarn(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(ForwardedHeadersWarning.class);
			assertThat(output).doesNotContain(WARNING);
		});
	}

}
