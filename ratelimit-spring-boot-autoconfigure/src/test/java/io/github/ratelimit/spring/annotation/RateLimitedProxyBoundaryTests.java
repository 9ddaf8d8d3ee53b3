package io.github.ratelimit.spring.annotation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.RateLimitExceededException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.SimpleTransactionStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Where the proxy that enforces {@link RateLimited} sits: calls from inside the bean bypass it, it decides before a
 * transaction begins, and behind {@code @Async} it decides on the executor's thread.
 */
class RateLimitedProxyBoundaryTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void callFromInsideTheBeanShouldBypassTheLimit() {
		this.runner.withBean(SelfCalling.class).run((context) -> {
			SelfCalling bean = context.getBean(SelfCalling.class);
			for (int i = 0; i < 3; i++) {
				assertThat(bean.outer()).isEqualTo("inner");
			}
			assertThat(bean.inner()).isEqualTo("inner");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(bean::inner);
		});
	}

	@Test
	void refusedCallShouldBeginNoTransaction() {
		this.runner.withUserConfiguration(TransactionConfiguration.class).run((context) -> {
			RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
			Ledger ledger = context.getBean(Ledger.class);
			ledger.book();
			assertThat(transactions.begun).hasSize(1);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(ledger::book);
			assertThat(transactions.begun).hasSize(1);
			assertThat(transactions.committed).isEqualTo(1);
			assertThat(transactions.rolledBack).isZero();
		});
	}

	@Test
	void asyncMethodShouldBeDecidedOnTheExecutorThreadAndRefusedThroughItsFuture() {
		this.runner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
			Mailer mailer = context.getBean(Mailer.class);
			String caller = Thread.currentThread().getName();
			assertThat(mailer.send().get()).isNotEqualTo(caller);
			CompletableFuture<String> refused = mailer.send();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(refused::get)
				.withCauseInstanceOf(RateLimitExceededException.class);
		});
	}

	static class SelfCalling {

		public String outer() {
			return inner();
		}

		@RateLimited(name = "inner", limits = "1/1h")
		public String inner() {
			return "inner";
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class TransactionConfiguration {

		@Bean
		RecordingTransactionManager transactionManager() {
			return new RecordingTransactionManager();
		}

		@Bean
		Ledger ledger() {
			return new Ledger();
		}

	}

	static class Ledger {

		@Transactional
		@RateLimited(name = "bookings", limits = "1/1h")
		public void book() {
		}

	}

	static class RecordingTransactionManager implements PlatformTransactionManager {

		final List<TransactionDefinition> begun = new ArrayList<>();

		int committed;

		int rolledBack;

		@Override
		public TransactionStatus getTransaction(TransactionDefinition definition) {
			this.begun.add(definition);
			return new SimpleTransactionStatus();
		}

		@Override
		public void commit(TransactionStatus status) {
			this.committed++;
		}

		@Override
		public void rollback(TransactionStatus status) {
			this.rolledBack++;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

		@Bean
		Mailer mailer() {
			return new Mailer();
		}

	}

	static class Mailer {

		@Async
		@RateLimited(name = "mails", limits = "1/1h")
		public CompletableFuture<String> send() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

	}

}
