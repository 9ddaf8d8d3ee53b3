package io.github.ratelimit.autoconfigure;

import java.util.EnumSet;

import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.annotation.RateLimitedAdvisor;
import io.github.ratelimit.spring.web.RateLimitExceptionHandler;
import io.github.ratelimit.spring.web.servlet.RateLimitFilter;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
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
	void filtersShouldBeRegisteredForRequestsBeforeAndAfterSpringSecurity() {
		this.contextRunner.run((context) -> {
			assertThat(context).getBeans(FilterRegistrationBean.class).hasSize(2);
			assertThat(context).hasSingleBean(RateLimitExceptionHandler.class);
			FilterRegistrationBean<?> before = context.getBean("rateLimitFilter", FilterRegistrationBean.class);
			assertThat(before.getFilter()).isInstanceOf(RateLimitFilter.class);
			assertThat(before.getFilterName()).isEqualTo("rateLimitFilter");
			assertThat(before.getOrder()).isEqualTo(-110);
			assertThat(before.determineDispatcherTypes()).isEqualTo(EnumSet.of(DispatcherType.REQUEST));
			FilterRegistrationBean<?> after = context.getBean("rateLimitPrincipalFilter", FilterRegistrationBean.class);
			assertThat(after.getFilter()).isInstanceOf(RateLimitFilter.class).isNotSameAs(before.getFilter());
			assertThat(after.getFilterName()).isEqualTo("rateLimitPrincipalFilter");
			assertThat(after.getOrder()).isEqualTo(-90);
			assertThat(after.determineDispatcherTypes()).isEqualTo(EnumSet.of(DispatcherType.REQUEST));
		});
	}

	@Test
	void filterOrdersShouldBeHonoured() {
		this.contextRunner.withPropertyValues("ratelimit.filter.order=42", "ratelimit.filter.principal-order=43")
			.run((context) -> {
				assertThat(context.getBean("rateLimitFilter", FilterRegistrationBean.class).getOrder()).isEqualTo(42);
				assertThat(context.getBean("rateLimitPrincipalFilter", FilterRegistrationBean.class).getOrder())
					.isEqualTo(43);
			});
	}

	@ParameterizedTest
	@ValueSource(ints = { -110, -200 })
	void principalFilterOrderNotAfterTheFirstShouldFailStartUp(int principalOrder) {
		this.contextRunner.withPropertyValues("ratelimit.filter.principal-order=" + principalOrder).run((context) -> {
			InvalidRateLimitConfigurationException invalid = InvalidConfiguration.of(context);
			assertThat(invalid.getProperty()).isEqualTo("ratelimit.filter.principal-order");
			assertThat(invalid).hasMessageContaining("ratelimit.filter.order");
			FailureAnalysis analysis = new InvalidRateLimitConfigurationFailureAnalyzer()
				.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getAction()).contains("ratelimit.filter.principal-order");
		});
	}

	@Test
	void filterWhenDisabledShouldNotBeRegistered() {
		this.contextRunner.withPropertyValues("ratelimit.filter.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class)
				.doesNotHaveBean(RateLimitFilter.class)
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
			assertThat(context).getBeans(FilterRegistrationBean.class).hasSize(2);
			assertThat(context.getBean("rateLimitFilter", FilterRegistrationBean.class).getOrder()).isEqualTo(7);
			assertThat(context.getBean("rateLimitPrincipalFilter", FilterRegistrationBean.class).getOrder())
				.isEqualTo(-90);
		});
	}

	@Test
	void userDefinedExceptionHandlerShouldReplaceOurs() {
		this.contextRunner
			.withBean("userHandler", RateLimitExceptionHandler.class,
					() -> new RateLimitExceptionHandler(new RateLimitHeaders(false, false)))
			.run((context) -> assertThat(context).hasSingleBean(RateLimitExceptionHandler.class)
				.hasBean("userHandler"));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserFilterConfiguration {

		@Bean
		FilterRegistrationBean<RateLimitFilter> rateLimitFilter(RateLimitRegistry registry,
				RateLimitEnforcer enforcer, RateLimitHeaders headers) {
			FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(
					new RateLimitFilter(registry.filterPolicies(false), enforcer, headers));
			registration.setOrder(7);
			return registration;
		}

	}

}
