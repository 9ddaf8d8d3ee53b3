package io.github.ratelimit.spring.annotation;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RateLimited} is enforced wherever Spring's annotation lookup finds it (an interface method, a superclass, a
 * superclass's class-level annotation), with class-based (Spring Boot's default) and JDK proxies alike, and each
 * policy is charged once per call however many places declare it.
 */
class RateLimitedResolutionTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory")
		.withBean(Ordering.class, OrderingService::new)
		.withBean(Invoicing.class, InvoicingService::new)
		.withBean(Reports.class, ReportService::new)
		.withBean(Archive.class, ArchiveService::new);

	@ParameterizedTest(name = "proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void annotationOnAnInterfaceMethodShouldBeEnforced(boolean classProxies) {
		run(classProxies, (context) -> {
			Ordering ordering = context.getBean(Ordering.class);
			assertThat(ordering.order("a")).isEqualTo("a");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> ordering.order("a"))
				.satisfies((refusal) -> assertThat(refusal.getPolicy()).isEqualTo("orders"));
			assertThat(ordering.order("b")).isEqualTo("b");
		});
	}

	@ParameterizedTest(name = "proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void policyDeclaredOnInterfaceAndImplementationShouldBeChargedOncePerCall(boolean classProxies) {
		run(classProxies, (context) -> {
			Invoicing invoicing = context.getBean(Invoicing.class);
			assertThat(invoicing.invoice()).isEqualTo("invoice");
			assertThat(invoicing.invoice()).isEqualTo("invoice");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(invoicing::invoice)
				.satisfies((refusal) -> assertThat(refusal.getPolicy()).isEqualTo("invoices"));
		});
	}

	@ParameterizedTest(name = "proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void defaultNamedPolicyOnInterfaceAndImplementationShouldBeChargedOncePerCall(boolean classProxies) {
		run(classProxies, (context) -> {
			Invoicing invoicing = context.getBean(Invoicing.class);
			invoicing.remind();
			invoicing.remind();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(invoicing::remind)
				.satisfies((refusal) -> assertThat(refusal.getPolicy()).isEqualTo("InvoicingService.remind"));
		});
	}

	@ParameterizedTest(name = "proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void classLevelAnnotationOfASuperclassShouldCoverMethodsDeclaredInTheSubclass(boolean classProxies) {
		run(classProxies, (context) -> {
			Reports reports = context.getBean(Reports.class);
			reports.daily();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(reports::daily)
				.satisfies((refusal) -> assertThat(refusal.getPolicy()).isEqualTo("ReportService.daily"));
		});
	}

	@ParameterizedTest(name = "proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void annotationOnAnOverriddenSuperclassMethodShouldBeEnforced(boolean classProxies) {
		run(classProxies, (context) -> {
			Archive archive = context.getBean(Archive.class);
			archive.monthly();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(archive::monthly)
				.satisfies((refusal) -> assertThat(refusal.getPolicy()).isEqualTo("monthly"));
		});
	}

	@ParameterizedTest(name = "proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void startUpShouldDeclareThePoliciesCallsEnforce(boolean classProxies) {
		run(classProxies, (context) -> {
			RateLimitRegistry registry = context.getBean(RateLimitRegistry.class);
			assertThat(registry.find("orders")).isPresent();
			assertThat(registry.find("invoices")).isPresent();
			assertThat(registry.find("InvoicingService.remind")).isPresent();
			assertThat(registry.find("ReportService.daily")).isPresent();
			assertThat(registry.find("monthly")).isPresent();
			assertThat(registry.uses("orders")).singleElement()
				.satisfies((use) -> assertThat(use.method()).isEqualTo(OrderingService.class.getName() + ".order"));
		});
	}

	private void run(boolean classProxies, ContextConsumer<AssertableApplicationContext> calls) {
		this.runner.withPropertyValues("spring.aop.proxy-target-class=" + classProxies).run((context) -> {
			assertThat(context).hasNotFailed();
			Object ordering = context.getBean(Ordering.class);
			assertThat(AopUtils.isCglibProxy(ordering)).isEqualTo(classProxies);
			assertThat(AopUtils.isJdkDynamicProxy(ordering)).isEqualTo(!classProxies);
			calls.accept(context);
		});
	}

	public interface Ordering {

		@RateLimited(name = "orders", limits = "1/1h", key = "#customer")
		String order(String customer);

	}

	static class OrderingService implements Ordering {

		@Override
		public String order(String customer) {
			return customer;
		}

	}

	public interface Invoicing {

		@RateLimited(name = "invoices", limits = "2/1h")
		String invoice();

		@RateLimited(limits = "2/1h")
		void remind();

	}

	static class InvoicingService implements Invoicing {

		@Override
		@RateLimited(name = "invoices", limits = "2/1h")
		public String invoice() {
			return "invoice";
		}

		@Override
		@RateLimited(limits = "2/1h")
		public void remind() {
		}

	}

	public interface Reports {

		void daily();

	}

	@RateLimited(limits = "1/1h")
	abstract static class LimitedReports implements Reports {

	}

	static class ReportService extends LimitedReports {

		@Override
		public void daily() {
		}

	}

	public interface Archive {

		void monthly();

	}

	abstract static class BaseArchive implements Archive {

		@Override
		@RateLimited(name = "monthly", limits = "1/1h")
		public void monthly() {
		}

	}

	static class ArchiveService extends BaseArchive {

		@Override
		public void monthly() {
		}

	}

}
