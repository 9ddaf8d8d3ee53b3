package io.github.ratelimit.core.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DenyCacheTests {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final DenyCache cache = new DenyCache(3, Duration.ofSeconds(1), this.nanos::get);

	private final Decision refusal = new Decision(false, Limit.parse("10/1m"), 1, Duration.ofSeconds(30),
			Duration.ofSeconds(54), Duration.ofSeconds(6), true, List.of(Limit.parse("10/1m")));

	@Test
	void refusesRequestsOfAtLeastTheRefusedPermitsWithTheWaitShortened() {
		this.cache.remember("p", "client", 2, this.refusal);
		advance(Duration.ofMillis(400));
		Decision cached = this.cache.find("p", "client", 2);
		assertThat(cached.allowed()).isFalse();
		assertThat(cached.retryAfter()).isEqualTo(Duration.ofMillis(29_600));
		assertThat(cached.resetAfter()).isEqualTo(Duration.ofMillis(53_600));
		assertThat(this.cache.find("p", "client", 5)).isNotNull();
		// one permit may fit where two did not: ask the backend
		assertThat(this.cache.find("p", "client", 1)).isNull();
		assertThat(this.cache.find("other", "client", 2)).isNull();
		assertThat(this.cache.find("p", "other", 2)).isNull();
	}

	@Test
	void answersNoLongerThanItsMaximumAgeNorPastTheRetryTime() {
		this.cache.remember("p", "client", 1, this.refusal);
		advance(Duration.ofMillis(999));
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
		advance(Duration.ofMillis(1));
		assertThat(this.cache.find("p", "client", 1)).isNull();
		this.cache.remember("p", "soon", 1,
				new Decision(false, Limit.parse("10/1m"), 0, Duration.ofMillis(200), Duration.ofSeconds(6),
						Duration.ofMillis(200), true, List.of(Limit.parse("10/1m"))));
		advance(Duration.ofMillis(200));
		assertThat(this.cache.find("p", "soon", 1)).isNull();
	}

	@Test
	void forgetsAClientOrEveryone() {
		this.cache.remember("p", "a", 1, this.refusal);
		this.cache.remember("p", "b", 1, this.refusal);
		this.cache.forget("p", "a");
		assertThat(this.cache.find("p", "a", 1)).isNull();
		assertThat(this.cache.find("p", "b", 1)).isNotNull();
		this.cache.clear();
		assertThat(this.cache.size()).isZero();
	}

	@Test
	void holdsAtMostItsMaximumEntries() {
		for (int i = 0; i < 5; i++) {
			this.cache.remember("p", "client-" + i, 1, this.refusal);
		}
		assertThat(this.cache.size()).isEqualTo(3);
		advance(Duration.ofSeconds(2));
		this.cache.remember("p", "late", 1, this.refusal);
		assertThat(this.cache.size()).isEqualTo(1);
		assertThat(this.cache.find("p", "late", 1)).isNotNull();
	}

	@Test
	void remembersOnlyRefusals() {
		this.cache.remember("p", "client", 1,
				new Decision(true, Limit.parse("10/1m"), 3, Duration.ZERO, Duration.ofSeconds(6),
						Duration.ofMillis(200), true, List.of()));
		assertThat(this.cache.size()).isZero();
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	@Test
	void refusalsNoWaitCanHelpAreNotRemembered() {
		Limit limit = Limit.parse("10/1m");
		this.cache.remember("p", "greedy", 11,
				new Decision(false, limit, 0, limit.period(), limit.period(), limit.period(), false, List.of(limit)));
		assertThat(this.cache.find("p", "greedy", 11)).isNull();
		assertThat(this.cache.find("p", "greedy", 20)).isNull();
		assertThat(this.cache.size()).isZero();
	}

}
