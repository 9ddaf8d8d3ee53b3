package io.github.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What {@link AbstractRateLimiter} decides whatever its backend answers: a request that can never succeed is refused
 * even when the backend cannot read the client's state.
 */
class AbstractRateLimiterTests {

	@Test
	void costAboveTheCapacityIsRefusedWithNoStateWhenTheBackendCannotReadIt() {
		Limit limit = Limit.parse("5/1m");
		AbstractRateLimiter failing = new AbstractRateLimiter(new Policy("p", Algorithm.TOKEN_BUCKET, List.of(limit))) {

			@Override
			protected CompletionStage<List<LimitDecision>> evaluate(String key, long permits, boolean consume) {
				return CompletableFuture.failedFuture(new IllegalStateException("backend down"));
			}

			@Override
			protected CompletionStage<Void> clear(String key) {
				return CompletableFuture.completedFuture(null);
			}

		};
		Decision refused = failing.tryAcquire("client", 6);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.satisfiable()).isFalse();
		assertThat(refused.violated()).containsExactly(limit);
		assertThat(refused.remaining()).isZero();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofMinutes(1));
		assertThat(refused.resetAfter()).isEqualTo(Duration.ofMinutes(1));
		assertThatIllegalStateException().isThrownBy(() -> failing.tryAcquire("client", 5))
			.withMessage("backend down");
	}

}
