package io.github.ratelimit.core.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DenyCacheTests {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final DenyCache cache = new DenyCache(3, Duration.ofSeconds(1), this.nanos::get);

	private final Decision refusal = new Decision(false, Limit.parse("10/1m"), 1, Duration.ofSeconds(30),
			Duration.ofSeconds(54), Duration.ofSeconds(6), true, List.of(Limit.parse("10/1m")));

	@Test
	void refusesRequestsOfAtLeastTheRefusedPermitsWithTheWaitShortened() {
		remember("client", 2, this.refusal);
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
		remember("client", 1, this.refusal);
		advance(Duration.ofMillis(999));
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
		advance(Duration.ofMillis(1));
		assertThat(this.cache.find("p", "client", 1)).isNull();
		remember("soon", 1,
				new Decision(false, Limit.parse("10/1m"), 0, Duration.ofMillis(200), Duration.ofSeconds(6),
						Duration.ofMillis(200), true, List.of(Limit.parse("10/1m"))));
		advance(Duration.ofMillis(200));
		assertThat(this.cache.find("p", "soon", 1)).isNull();
	}

	@Test
	void forgetsAClientOrEveryone() {
		remember("a", 1, this.refusal);
		remember("b", 1, this.refusal);
		this.cache.forget("p", "a");
		assertThat(this.cache.find("p", "a", 1)).isNull();
		assertThat(this.cache.find("p", "b", 1)).isNotNull();
		this.cache.clear();
		assertThat(this.cache.size()).isZero();
	}

	@Test
	void holdsAtMostItsMaximumEntriesAndExpiresThemOnItsOwn() {
		for (int i = 0; i < 5; i++) {
			remember("client-" + i, 1, this.refusal);
		}
		assertThat(this.cache.size()).isLessThanOrEqualTo(3);
		advance(Duration.ofSeconds(2));
		assertThat(this.cache.size()).isZero();
		remember("late", 1, this.refusal);
		assertThat(this.cache.find("p", "late", 1)).isNotNull();
	}

	@Test
	void aFloodOfAMillionClientsStaysWithinTheMaximum() {
		DenyCache cache = new DenyCache(10_000, Duration.ofSeconds(1), this.nanos::get);
		for (int i = 0; i < 1_000_000; i++) {
			cache.remember("p", "client-" + i, 1, this.refusal, cache.now());
		}
		assertThat(cache.size()).isLessThanOrEqualTo(10_000);
		cache.remember("p", "last", 1, this.refusal, cache.now());
		assertThat(cache.find("p", "last", 1)).isNotNull();
	}

	@Test
	void theWaitCountsFromWhenTheBackendCallStarted() {
		long started = this.cache.now();
		advance(Duration.ofMillis(300));
		this.cache.remember("p", "client", 1, this.refusal, started);
		Decision cached = this.cache.find("p", "client", 1);
		assertThat(cached.retryAfter()).isEqualTo(Duration.ofMillis(29_700));
		assertThat(cached.resetAfter()).isEqualTo(Duration.ofMillis(53_700));
		advance(Duration.ofMillis(699));
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
		advance(Duration.ofMillis(1));
		// the maximum age, too, counts from the call's start, not from the reply
		assertThat(this.cache.find("p", "client", 1)).isNull();
	}

	@Test
	void neverAnswersPastTheRetryTimeCountedFromTheCallsStart() {
		Decision shortWait = new Decision(false, Limit.parse("10/1m"), 0, Duration.ofMillis(500), Duration.ofSeconds(6),
				Duration.ofMillis(500), true, List.of(Limit.parse("10/1m")));
		long started = this.cache.now();
		advance(Duration.ofMillis(300));
		this.cache.remember("p", "client", 1, shortWait, started);
		advance(Duration.ofMillis(199));
		assertThat(this.cache.find("p", "client", 1).retryAfter()).isEqualTo(Duration.ofMillis(1));
		advance(Duration.ofMillis(1));
		// the backend would admit now: 500 ms after the call started, whenever its reply arrived
		assertThat(this.cache.find("p", "client", 1)).isNull();
	}

	@Test
	void aRefusalInFlightDuringAResetIsNotRememberedAfterIt() {
		long started = this.cache.now();
		advance(Duration.ofMillis(10));
		this.cache.forget("p", "client");
		advance(Duration.ofMillis(10));
		this.cache.remember("p", "client", 1, this.refusal, started);
		assertThat(this.cache.find("p", "client", 1)).isNull();
		remember("client", 1, this.refusal);
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
	}

	@Test
	void aRefusalInFlightDuringAClearIsNotRememberedAfterIt() {
		long started = this.cache.now();
		this.cache.clear();
		this.cache.remember("p", "client", 1, this.refusal, started);
		assertThat(this.cache.find("p", "client", 1)).isNull();
		advance(Duration.ofNanos(1));
		remember("client", 1, this.refusal);
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
	}

	@Test
	void anAgedEntryIsAskedAgainByOneRequestWhileTheOthersAreRefusedFromIt() {
		remember("client", 1, this.refusal);
		advance(Duration.ofSeconds(1));
		long reasked = this.cache.now();
		assertThat(this.cache.find("p", "client", 1)).isNull();
		for (int i = 0; i < 5; i++) {
			Decision stale = this.cache.find("p", "client", 2);
			assertThat(stale.allowed()).isFalse();
			assertThat(stale.retryAfter()).isEqualTo(Duration.ofSeconds(29));
		}
		advance(Duration.ofMillis(5));
		this.cache.remember("p", "client", 1, this.refusal, reasked);
		assertThat(this.cache.find("p", "client", 1).retryAfter()).isEqualTo(Duration.ofMillis(29_995));
		advance(Duration.ofMillis(995));
		assertThat(this.cache.find("p", "client", 1)).isNull();
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
	}

	@Test
	void anAgedEntryPastItsRetryTimeIsAskedAgainOnceAndRefusesWithoutAWaitMeanwhile() {
		remember("client", 1, new Decision(false, Limit.parse("10/1m"), 0, Duration.ofMillis(200),
				Duration.ofSeconds(6), Duration.ofMillis(200), true, List.of(Limit.parse("10/1m"))));
		advance(Duration.ofMillis(300));
		assertThat(this.cache.find("p", "client", 1)).isNull();
		assertThat(this.cache.find("p", "client", 1).retryAfter()).isZero();
	}

	@Test
	void aReaskWithoutAnAnswerLetsTheNextRequestAskAgain() {
		long refused = this.cache.now();
		remember("client", 1, this.refusal);
		advance(Duration.ofSeconds(1));
		long reasked = this.cache.now();
		assertThat(this.cache.find("p", "client", 1)).isNull();
		// a call that started before the re-ask does not end it
		this.cache.unanswered("p", "client", refused);
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
		this.cache.unanswered("p", "client", reasked);
		assertThat(this.cache.find("p", "client", 1)).isNull();
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
	}

	@Test
	void anAdmittedReaskForgetsTheClient() {
		remember("client", 2, this.refusal);
		advance(Duration.ofSeconds(1));
		long reasked = this.cache.now();
		assertThat(this.cache.find("p", "client", 2)).isNull();
		// an admission of fewer permits than refused says nothing of the refusal, but ends the re-ask
		this.cache.admitted("p", "client", 1, reasked);
		assertThat(this.cache.find("p", "client", 2)).isNull();
		this.cache.admitted("p", "client", 2, reasked);
		assertThat(this.cache.find("p", "client", 2)).isNull();
		assertThat(this.cache.find("p", "client", 2)).isNull();
		assertThat(this.cache.size()).isZero();
	}

	@Test
	void aReaskNeverEndedHoldsTheAgedRefusalAtMostItsLongestHold() {
		remember("client", 1, this.refusal);
		advance(Duration.ofMillis(1500));
		assertThat(this.cache.find("p", "client", 1)).isNull();
		advance(Duration.ofSeconds(DenyCache.REASK_HOLD_SECONDS).minusMillis(1));
		assertThat(this.cache.find("p", "client", 1)).isNotNull();
		advance(Duration.ofMillis(1));
		assertThat(this.cache.find("p", "client", 1)).isNull();
		assertThat(this.cache.find("p", "client", 1)).isNull();
	}

	@Test
	void anAgedEntryNobodyAsksAgainIsGoneAfterAnotherMaximumAge() {
		remember("client", 1, this.refusal);
		advance(Duration.ofSeconds(2));
		assertThat(this.cache.find("p", "client", 1)).isNull();
		assertThat(this.cache.find("p", "client", 1)).isNull();
		assertThat(this.cache.size()).isZero();
	}

	@Test
	void rejectsAMaximumBelowOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> new DenyCache(0, Duration.ofSeconds(1)))
			.withMessageContaining("at least 1");
	}

	private void remember(String client, long permits, Decision denial) {
		this.cache.remember("p", client, permits, denial, this.cache.now());
	}

	@Test
	void remembersOnlyRefusals() {
		remember("client", 1,
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
		remember("greedy", 11,
				new Decision(false, limit, 0, limit.period(), limit.period(), limit.period(), false, List.of(limit)));
		assertThat(this.cache.find("p", "greedy", 11)).isNull();
		assertThat(this.cache.find("p", "greedy", 20)).isNull();
		assertThat(this.cache.size()).isZero();
	}

}
