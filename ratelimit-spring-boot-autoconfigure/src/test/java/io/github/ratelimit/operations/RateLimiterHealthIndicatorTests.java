package io.github.ratelimit.operations;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.actuate.RateLimiterHealthIndicator;
import io.github.ratelimit.test.LettuceLibrary;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The health indicator as the circuit breaker's probe: a backend's failure counts (a {@link LinkageError} too, a
 * library of the backend's that is not compatible), anything else does not, and a check that ends in another
 * {@link Error} leaves the probe slot free.
 */
class RateLimiterHealthIndicatorTests {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final CircuitBreaker breaker = new CircuitBreaker(50, Duration.ofSeconds(1), 1, Duration.ofSeconds(1),
			this.nanos::get);

	private final CheckedBackend backend = new CheckedBackend();

	private final RateLimiterHealthIndicator health = new RateLimiterHealthIndicator(
			new RateLimitEnforcer(List.of(), this.backend, this.breaker, null, 1), "checked", FailureMode.OPEN);

	@Test
	void aFailingBackendOpensTheBreakerAndAPassingCheckClosesIt() {
		this.backend.failure = () -> new BackendDown();
		assertThat(this.health.health(true).getStatus()).isEqualTo(Status.DOWN);
		assertThat(this.breaker.isOpen()).isTrue();
		this.backend.failure = null;
		assertThat(this.health.health(true).getStatus()).as("still open: no probe yet").isEqualTo(Status.DOWN);
		this.nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		assertThat(this.health.health(true).getStatus()).isEqualTo(Status.UP);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void anErrorThatIsNotTheBackendsIsDownButDoesNotOpenTheBreaker() {
		this.backend.failure = () -> new IllegalStateException("bug");
		assertThat(this.health.health(true).getStatus()).isEqualTo(Status.DOWN);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void aProbeThatThrowsAnErrorFreesTheProbeSlot() {
		this.backend.failure = () -> new BackendDown();
		this.health.health(true);
		this.nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		this.backend.failure = () -> {
			throw new OutOfMemoryError("probe");
		};
		assertThatExceptionOfType(OutOfMemoryError.class).isThrownBy(() -> this.health.health(true));
		this.backend.failure = null;
		assertThat(this.health.health(true).getStatus()).isEqualTo(Status.UP);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void anIncompatibleLibraryIsDownNamingItAndOpensTheBreaker() {
		this.backend.failure = () -> {
			throw new NoSuchMethodError(LettuceLibrary.REMOVED_METHOD);
		};
		Health down = this.health.health(true);
		assertThat(down.getStatus()).isEqualTo(Status.DOWN);
		assertThat(down.getDetails().get("error")).asString()
			.startsWith(LettuceLibrary.described() + " is not compatible with this version of the rate limit starter: "
					+ "java.lang.NoSuchMethodError: " + LettuceLibrary.REMOVED_METHOD + ", called from ");
		assertThat(this.breaker.isOpen()).isTrue();
		assertThat(this.health.health(true).getDetails()).as("answered by the open breaker")
			.containsEntry("error", down.getDetails().get("error"));
	}

	static class BackendDown extends RuntimeException {

	}

	static final class CheckedBackend implements RateLimiterBackend {

		volatile @Nullable Supplier<RuntimeException> failure;

		@Override
		public RateLimiter create(Policy policy) {
			throw new UnsupportedOperationException();
		}

		@Override
		public String name() {
			return "checked";
		}

		@Override
		public void check() {
			Supplier<RuntimeException> current = this.failure;
			if (current != null) {
				throw current.get();
			}
		}

		@Override
		public boolean isBackendFailure(Throwable error) {
			return error instanceof BackendDown;
		}

	}

}
