package io.github.ratelimit.autoconfigure;

import java.util.EnumSet;

import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.annotation.RateLimitedAdvisor;
import io.github.ratelimit.spring.web.HeaderStyle;
import io.github.ratelimit.spring.web.servlet.ProblemResponseWriter;
import io.github.ratelimit.spring.web.servlet.RateLimitExceptionHandler;
import io.github.ratelimit.spring.web.servlet.RateLimitFilter;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitServletAutoConfiguration}.
 */
class RateLimitServletAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class, AopAutoConfiguration.class,
				RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void filterShouldBeRegisteredForRequestsAfterSpringSecurity() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(FilterRegistrationBean.class)
				.hasSingleBean(RateLimitExceptionHandler.class)
				.hasSingleBean(ProblemResponseWriter.class);
			FilterRegistrationBean<?> registration = context.getBean(FilterRegistrationBean.class);
			assertThat(registration.getFilter()).isInstanceOf(RateLimitFilter.class);
			assertThat(registration.getFilterName()).isEqualTo("rateLimitFilter");
			assertThat(registration.getOrder()).isEqualTo(-90);
			assertThat(registration.determineDispatcherTypes()).isEqualTo(EnumSet.of(DispatcherType.REQUEST));
		});
	}

	@Test
	void filterOrderShouldBeHonoured() {
		this.contextRunner.withPropertyValues("ratelimit.filter.order=42")
			.run((context) -> assertThat(context.getBean(FilterRegistrationBean.class).getOrder()).isEqualTo(42));
	}

	@Test
	void filterWhenDisabledShouldNotBeRegistered() {
		this.contextRunner.withPropertyValues("ratelimit.filter.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class)
				.hasSingleBean(RateLimitRegistry.class)
				.hasSingleBean(RateLimitExceptionHandler.class)
				.hasSingleBean(RateLimitedAdvisor.class));
	}

	@Test
	void filterWhenRateLimitingIsDisabledShouldNotBeRegistered() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(FilterRegistrationBean.class)
				.doesNotHaveBean(RateLimitExceptionHandler.class)
				.doesNotHaveBean(RateLimitRegistry.class)
				.doesNotHaveBean(RateLimitedAdvisor.class));
	}

	@Test
	void filterWhenNotAWebApplicationShouldNotBeRegisteredButRegistryAndAspectShould() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitServletAutoConfiguration.class, AopAutoConfiguration.class,
					RateLimitAspectAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(FilterRegistrationBean.class)
				.doesNotHaveBean(RateLimitFilter.class)
				.doesNotHaveBean(RateLimitExceptionHandler.class)
				.hasSingleBean(RateLimitRegistry.class)
				.hasSingleBean(RateLimitedAdvisor.class));
	}

	@Test
	void userDefinedFilterRegistrationShouldReplaceOurs() {
		this.contextRunner.withUserConfiguration(UserFilterConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(FilterRegistrationBean.class);
			assertThat(context.getBean(FilterRegistrationBean.class).getOrder()).isEqualTo(7);
		});
	}

	@Test
	void userDefinedExceptionHandlerShouldReplaceOurs() {
		this.contextRunner
			.withBean("userHandler", RateLimitExceptionHandler.class,
					() -> new RateLimitExceptionHandler(new RateLimitHeaders(HeaderStyle.NONE)))
			.run((context) -> assertThat(context).hasSingleBean(RateLimitExceptionHandler.class)
				.hasBean("userHandler"));
	}

	@Test
	void userDefinedProblemResponseWriterShouldReplaceOurs() {
		this.contextRunner.withBean("userWriter", ProblemResponseWriter.class, ProblemResponseWriter::new)
			.run((context) -> assertThat(context).hasSingleBean(ProblemResponseWriter.class).hasBean("userWriter"));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserFilterConfiguration {

		@Bean
		FilterRegistrationBean<RateLimitFilter> rateLimitFilter(RateLimitRegistry registry,
				RateLimitEnforcer enforcer, RateLimitHeaders headers) {
			FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(
					new RateLimitFilter(registry, enforcer, headers, new ProblemResponseWriter()));
			registration.setOrder(7);
			return registration;
		}

	}

}
