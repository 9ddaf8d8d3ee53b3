package io.github.ratelimit.spring.annotation;

import java.time.Duration;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimitedCostException;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RateLimited} on a plain service, called outside any web request.
 */
class RateLimitedServiceTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withPropertyValues(TestRedisProperties.values())
		.withUserConfiguration(QuotaService.class);

	@Test
	void callOverTheLimitShouldThrowRateLimitExceededExceptionCarryingTheDecision() {
		this.contextRunner.run((context) -> {
			QuotaService service = context.getBean(QuotaService.class);
			assertThat(service.call("k1")).isEqualTo("k1");
			assertThat(service.call("k1")).isEqualTo("k1");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.call("k1"))
				.satisfies((refusal) -> {
					assertThat(refusal.getPolicy()).isEqualTo("quota");
					assertThat(refusal.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
					Decision decision = refusal.getDecision();
					assertThat(decision.allowed()).isFalse();
					assertThat(decision.satisfiable()).isTrue();
					assertThat(decision.limit()).isEqualTo(Limit.of(2, Duration.ofHours(1)));
					assertThat(decision.remaining()).isZero();
					assertThat(decision.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(30));
					assertThat(refusal.getHeaders().getFirst(HttpHeaders.RETRY_AFTER))
						.isEqualTo(Long.toString(decision.retryAfterSeconds()));
					assertThat(refusal.getBody().getInstance()).isNull();
					assertThat(refusal.getBody().getProperties()).containsEntry("policy", "quota");
					assertThat(refusal).hasMessageContaining("'quota'");
				});
		});
	}

	@Test
	void limitsPerApiKeyShouldBeIndependent() {
		this.contextRunner.run((context) -> {
			QuotaService service = context.getBean(QuotaService.class);
			service.call("k1");
			service.call("k1");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.call("k1"));
			assertThat(service.call("k2")).isEqualTo("k2");
			assertThat(service.call("k2")).isEqualTo("k2");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.call("k2"));
		});
	}

	@Test
	void callWithoutKeyOutsideAWebRequestShouldBeCountedUnderOneGlobalKey() {
		this.contextRunner.run((context) -> {
			QuotaService service = context.getBean(QuotaService.class);
			assertThat(service.nightlyReport()).isEqualTo("report");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(service::nightlyReport)
				.satisfies((refusal) -> assertThat(refusal.getPolicy()).isEqualTo("QuotaService.nightlyReport"));
		});
	}

	@Test
	void callOverTheLimitShouldThrowWithTheInMemoryBackend() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitAspectAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory")
			.withUserConfiguration(QuotaService.class)
			.run((context) -> {
				QuotaService service = context.getBean(QuotaService.class);
				service.call("k1");
				service.call("k1");
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.call("k1"))
					.satisfies((refusal) -> assertThat(refusal.getDecision().remaining()).isZero());
				assertThat(service.call("k2")).isEqualTo("k2");
			});
	}

	@Test
	void annotationsWhenRateLimitingIsDisabledShouldNotBeEnforced() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false").run((context) -> {
			QuotaService service = context.getBean(QuotaService.class);
			for (int i = 0; i < 5; i++) {
				assertThat(service.call("k1")).isEqualTo("k1");
			}
		});
	}

	@Test
	void keyExpressionThatFailsOutsideAWebRequestShouldCountTheCallUnderTheGlobalKey() {
		this.contextRunner.run((context) -> {
			QuotaService service = context.getBean(QuotaService.class);
			assertThat(service.fragile("a")).isEqualTo("a");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.fragile("b"));
			assertThat(service.fragile("long enough")).isEqualTo("long enough");
		});
	}

	@Test
	void costBelowOneOutsideAWebRequestShouldThrowWithoutCharging() {
		this.contextRunner.run((context) -> {
			QuotaService service = context.getBean(QuotaService.class);
			assertThatExceptionOfType(RateLimitedCostException.class).isThrownBy(() -> service.batch(0))
				.satisfies((invalid) -> {
					assertThat(invalid.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
					assertThat(invalid).hasMessageContaining("'#size'").hasMessageContaining("came to 0");
				});
			assertThatExceptionOfType(RateLimitedCostException.class).isThrownBy(() -> service.batch(-1));
			assertThat(service.batch(10)).isEqualTo(10);
		});
	}

	@Service
	static class QuotaService {

		@RateLimited(name = "quota", limits = "2/1h", key = "#apiKey")
		public String call(String apiKey) {
			return apiKey;
		}

		@RateLimited(limits = "1/1h")
		public String nightlyReport() {
			return "report";
		}

		@RateLimited(name = "fragile", limits = "1/1h", key = "#account.substring(5)")
		public String fragile(String account) {
			return account;
		}

		@RateLimited(name = "batch", limits = "10/1h", cost = "#size")
		public int batch(int size) {
			return size;
		}

	}

}
