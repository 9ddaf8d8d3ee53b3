package io.github.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Waiting for permits on a real in-memory limiter: arrival order, one caller asking at a time, giving up at once when
 * the next permit is out of reach, the maximum wait, interrupts and cancellation, and a permit granted to a caller that
 * gave up going to the next one. No assertion bounds how fast a busy machine runs: order and counts, not durations,
 * except that a wait never ends before the permit it waits for.
 */
class WaitingRateLimiterTests {

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend();

	@Test
	void callersOfOneKeyAreServedInArrivalOrderOneCallAtATime() throws Exception {
		Counted limiter = new Counted(this.backend.create(Policy.of("steady", Algorithm.GCRA, "20/1s")), false);
		long start = System.nanoTime(); // before the first permit of the full burst of 20
		drain(limiter, "k");
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<CompletableFuture<Decision>> all = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			int caller = i;
			all.add(waiting.acquireAsync("k", 1, Duration.ofSeconds(30)).whenComplete((decision, error) -> order.add(caller)));
		}
		CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		assertThat(all).allSatisfy((decision) -> assertThat(decision.join().allowed()).isTrue());
		assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
		// 28 permits of a full burst of 20 refilled 20 a second: the 28th comes 400 ms after the first
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(350));
		assertThat(limiter.mostInFlight.get()).as("callers in line never ask at once").isEqualTo(1);
		assertThat(waiting.waiting()).isZero();
	}

	@Test
	void reservingCallersAskOncePerPermitAreServedInArrivalOrderAndNeverBeforeTheirPermitIsDue() throws Exception {
		// GCRA reserves: each caller takes its permit with one call, due later, and sleeps until then while the next
		// asks; the 8th permit after the burst of 20 comes 400 ms after the first
		Counted limiter = new Counted(this.backend.create(Policy.of("steady", Algorithm.GCRA, "20/1s")));
		assertThat(limiter.reserves()).isTrue();
		long start = System.nanoTime();
		drain(limiter, "k");
		int callsBefore = limiter.calls.get();
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<CompletableFuture<Decision>> all = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			int caller = i;
			all.add(waiting.acquireAsync("k", 1, Duration.ofSeconds(30))
				.whenComplete((decision, error) -> order.add(caller)));
		}
		CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		assertThat(all).allSatisfy((decision) -> assertThat(decision.join().allowed()).isTrue());
		assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
		assertThat(limiter.calls.get() - callsBefore).as("one call per permit").isEqualTo(8);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(390));
		assertThat(all.get(7).join().retryAfter()).as("the last caller's permit was due later")
			.isGreaterThan(Duration.ofMillis(100));
		assertThat(limiter.mostInFlight.get()).as("callers in line never ask at once").isEqualTo(1);
		assertThat(waiting.waiting()).isZero();
	}

	@Test
	void instancesReservingOnOneKeyAskOncePerPermitAndKeepTheRate() throws Exception {
		// the contention of the back-off test below, on a limiter that reserves: three instances of 6 threads, 144
		// permits at 100 a second after the burst, one call each; the last is due 1.44 s after the bucket was drained
		Counted limiter = new Counted(this.backend.create(Policy.of("shared", Algorithm.TOKEN_BUCKET, "100/1s")));
		long start = System.nanoTime();
		drain(limiter, "k");
		int callsBefore = limiter.calls.get();
		int admittedBefore = limiter.admitted.get();
		int admitted = admittedByCallers(List.of(new WaitingRateLimiter(limiter), new WaitingRateLimiter(limiter),
				new WaitingRateLimiter(limiter)), 6, 8);
		assertThat(admitted).isEqualTo(144);
		assertThat(limiter.admitted.get() - admittedBefore).isEqualTo(144);
		assertThat(limiter.calls.get() - callsBefore).as("one call per permit").isEqualTo(144);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1430));
	}

	@Test
	void aReservationDueAfterTheMaximumWaitIsRefusedAtOnceWithOneCall() {
		Counted limiter = new Counted(this.backend.create(Policy.of("slow", Algorithm.GCRA, "1/10s")));
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		assertThat(waiting.acquire("k", 1, Duration.ofSeconds(1)).allowed()).isTrue();
		Decision refused = waiting.acquire("k", 1, Duration.ofSeconds(1));
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isGreaterThan(Duration.ofSeconds(9));
		assertThat(limiter.calls.get()).isEqualTo(2);
	}

	@Test
	void aReservedCallerCancelledBeforeItsPermitIsDueCountsItAbandoned() throws Exception {
		Counted limiter = new Counted(this.backend.create(Policy.of("rare", Algorithm.GCRA, "1/1s")));
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		assertThat(waiting.acquire("k", 1, Duration.ofSeconds(5)).allowed()).isTrue();
		CompletableFuture<Decision> reserved = waiting.acquireAsync("k", 1, Duration.ofSeconds(5));
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (limiter.admitted.get() < 2 && System.nanoTime() < deadline) {
			Thread.sleep(1);
		}
		assertThat(limiter.admitted.get()).as("the second permit was reserved").isEqualTo(2);
		assertThat(reserved).isNotDone();
		assertThat(waiting.waiting()).as("a reserved caller is no longer in line").isZero();
		reserved.cancel(false);
		assertThat(waiting.abandoned()).isEqualTo(1);
		assertThat(limiter.calls.get()).isEqualTo(2);
	}

	@Test
	void aCallerWhoseNextPermitIsOutOfReachIsRefusedAtOnceWithOneCall() {
		Counted limiter = new Counted(this.backend.create(Policy.of("slow", Algorithm.FIXED_WINDOW, "1/1h")));
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		assertThat(waiting.acquire("k", 1, Duration.ofSeconds(5)).allowed()).isTrue();
		Decision refused = waiting.acquire("k", 1, Duration.ofSeconds(5));
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isGreaterThan(Duration.ofSeconds(5));
		assertThat(limiter.calls.get()).isEqualTo(2);
	}

	@Test
	void aCostAboveTheCapacityIsRefusedAtOnce() {
		Counted limiter = new Counted(this.backend.create(Policy.of("small", Algorithm.TOKEN_BUCKET, "3/1s")));
		Decision refused = new WaitingRateLimiter(limiter).acquire("k", 4, Duration.ofSeconds(30));
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.satisfiable()).isFalse();
		assertThat(limiter.calls.get()).isEqualTo(1);
	}

	@Test
	void aZeroWaitAsksOnce() {
		Counted limiter = new Counted(this.backend.create(Policy.of("once", Algorithm.FIXED_WINDOW, "1/1h")));
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		assertThat(waiting.acquire("k", 1, Duration.ZERO).allowed()).isTrue();
		assertThat(waiting.acquire("k", 1, Duration.ZERO).allowed()).isFalse();
		assertThat(limiter.calls.get()).isEqualTo(2);
		assertThatThrownBy(() -> waiting.acquire("k", 1, Duration.ofMillis(-1)))
			.isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> waiting.acquire("k", 0, Duration.ofSeconds(1)))
			.isInstanceOf(IllegalArgumentException.class);
	}

	@Test
	void aCallerInLineGivesUpAtItsMaximumWaitBeforeTheHeadIsServed() throws Exception {
		// one permit every 2 s: the head waits about 2 s; the caller behind it may wait 300 ms only
		Counted limiter = new Counted(this.backend.create(Policy.of("sparse", Algorithm.GCRA, "1/2s")), false);
		drain(limiter, "k");
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		CompletableFuture<Decision> head = waiting.acquireAsync("k", 1, Duration.ofSeconds(30));
		long start = System.nanoTime();
		CompletableFuture<Decision> behind = waiting.acquireAsync("k", 1, Duration.ofMillis(300));
		Decision gaveUp = behind.get(30, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(gaveUp.allowed()).isFalse();
		assertThat(head).isNotDone();
		assertThat(head.get(30, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(limiter.mostInFlight.get()).isEqualTo(1);
	}

	@Test
	void aCallerWhoseWaitEndsInALineThatKeepsAdmittingAsksOnceItselfRatherThanWaitingForItsTurn() throws Exception {
		// one permit every 2 s, none refused yet: the head is admitted and the next caller sleeps until the next
		// permit is due; the caller behind it may wait 100 ms only, and ends then with its own refusal, not 2 s later
		// with a permit
		Counted limiter = new Counted(this.backend.create(Policy.of("sparse", Algorithm.GCRA, "1/2s")), false);
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		CompletableFuture<Decision> first = waiting.acquireAsync("k", 1, Duration.ofSeconds(30));
		CompletableFuture<Decision> second = waiting.acquireAsync("k", 1, Duration.ofMillis(100));
		CompletableFuture<Decision> third = waiting.acquireAsync("k", 1, Duration.ofSeconds(30));
		assertThat(first.get(30, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(second.get(30, TimeUnit.SECONDS).allowed()).isFalse();
		assertThat(third.get(30, TimeUnit.SECONDS).allowed()).isTrue();
	}

	@Test
	void aCallerWhoseResultIsCompletedElsewhereGivesItsPlaceUp() throws Exception {
		Counted limiter = new Counted(this.backend.create(Policy.of("rare", Algorithm.GCRA, "1/10s")));
		drain(limiter, "k");
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		CompletableFuture<Decision> timedOut = waiting.acquireAsync("k", 1, Duration.ofSeconds(30))
			.orTimeout(50, TimeUnit.MILLISECONDS);
		assertThatThrownBy(() -> timedOut.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(TimeoutException.class);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (waiting.waiting() > 0 && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		assertThat(waiting.waiting()).isZero();
	}

	@Test
	void anInterruptedCallerGivesItsPlaceUpAndKeepsTheFlag() throws Exception {
		Counted limiter = new Counted(this.backend.create(Policy.of("rare", Algorithm.GCRA, "1/10s")));
		drain(limiter, "k");
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		AtomicReference<Boolean> flag = new AtomicReference<>();
		CountDownLatch started = new CountDownLatch(1);
		Thread caller = new Thread(() -> {
			started.countDown();
			try {
				waiting.acquire("k", 1, Duration.ofSeconds(30));
			}
			catch (Throwable ex) {
				thrown.set(ex);
			}
			flag.set(Thread.currentThread().isInterrupted());
		});
		caller.start();
		started.await();
		while (waiting.waiting() == 0) {
			Thread.onSpinWait();
		}
		caller.interrupt();
		caller.join(30_000);
		assertThat(thrown.get()).isInstanceOf(CancellationException.class);
		assertThat(flag.get()).isTrue();
		assertThat(waiting.waiting()).isZero();
	}

	@Test
	void aPermitGrantedToACallerThatGaveUpGoesToTheNextAskingAsMuch() throws Exception {
		Held limiter = new Held(this.backend.create(Policy.of("handed", Algorithm.FIXED_WINDOW, "1/1h")));
		limiter.answers.add(CompletableFuture.completedFuture(refusal(limiter, Duration.ofMillis(20))));
		CompletableFuture<Decision> inFlight = new CompletableFuture<>();
		limiter.answers.add(inFlight);
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		CompletableFuture<Decision> first = waiting.acquireAsync("k", 1, Duration.ofMillis(200));
		CompletableFuture<Decision> second = waiting.acquireAsync("k", 1, Duration.ofSeconds(30));
		// the first gives up while its second call is in flight, with the refusal it had
		assertThat(first.get(30, TimeUnit.SECONDS).allowed()).isFalse();
		assertThat(second).isNotDone();
		Decision admission = this.backend.create(Policy.of("grant", Algorithm.FIXED_WINDOW, "5/1h")).tryAcquire("g");
		inFlight.complete(admission);
		assertThat(second.get(30, TimeUnit.SECONDS)).isSameAs(admission);
		assertThat(limiter.calls.get()).as("the second caller did not ask").isEqualTo(2);
		assertThat(waiting.abandoned()).isZero();
	}

	@Test
	void aReservationGrantedToACallerThatGaveUpGoesToTheNextAskingAsMuchWhenItIsDue() throws Exception {
		Held limiter = new Held(this.backend.create(Policy.of("handed", Algorithm.GCRA, "1/1h")), true);
		CompletableFuture<Decision> inFlight = new CompletableFuture<>();
		limiter.answers.add(inFlight);
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		CompletableFuture<Decision> first = waiting.acquireAsync("k", 1, Duration.ofSeconds(30));
		CompletableFuture<Decision> second = waiting.acquireAsync("k", 1, Duration.ofSeconds(30));
		first.cancel(false);
		Decision admission = this.backend.create(Policy.of("grant", Algorithm.GCRA, "5/1h")).tryAcquire("g");
		Decision reservation = new Decision(true, admission.limit(), 0, Duration.ofMillis(300),
				admission.resetAfter(), admission.nextPermitAfter(), true, List.of());
		long handed = System.nanoTime();
		inFlight.complete(reservation);
		assertThat(second.get(30, TimeUnit.SECONDS)).isSameAs(reservation);
		assertThat(Duration.ofNanos(System.nanoTime() - handed)).as("not before it was due")
			.isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(limiter.calls.get()).as("the second caller did not ask").isEqualTo(1);
		assertThat(waiting.abandoned()).isZero();
	}

	@Test
	void aReservationDueAfterTheNextCallersMaximumWaitIsNotHandedToIt() throws Exception {
		Held limiter = new Held(this.backend.create(Policy.of("handed", Algorithm.GCRA, "1/1h")), true);
		CompletableFuture<Decision> inFlight = new CompletableFuture<>();
		limiter.answers.add(inFlight);
		limiter.answers.add(CompletableFuture.completedFuture(refusal(limiter, Duration.ofHours(1))));
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		CompletableFuture<Decision> first = waiting.acquireAsync("k", 1, Duration.ofSeconds(30));
		CompletableFuture<Decision> second = waiting.acquireAsync("k", 1, Duration.ofSeconds(10));
		first.cancel(false);
		Decision admission = this.backend.create(Policy.of("grant", Algorithm.GCRA, "5/1h")).tryAcquire("g");
		inFlight.complete(new Decision(true, admission.limit(), 0, Duration.ofSeconds(20), admission.resetAfter(),
				admission.nextPermitAfter(), true, List.of()));
		// due in 20 s, the second may wait 10 s: it asks for itself (refused, its permit an hour away)
		assertThat(second.get(30, TimeUnit.SECONDS).allowed()).isFalse();
		assertThat(waiting.abandoned()).isEqualTo(1);
		assertThat(limiter.calls.get()).isEqualTo(2);
	}

	@Test
	void aFixedWindowPermitGrantedToACallerThatGaveUpWithNobodyBehindIsGivenBack() throws Exception {
		RateLimiter real = this.backend.create(Policy.of("returned", Algorithm.FIXED_WINDOW, "5/1h"));
		CompletableFuture<Void> gate = new CompletableFuture<>();
		RateLimiter gated = new RateLimiter() {

			@Override
			public Policy policy() {
				return real.policy();
			}

			@Override
			public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
				throw new AssertionError("a limiter that takes permits back is asked for a grant");
			}

			@Override
			public boolean takesBack() {
				return real.takesBack();
			}

			@Override
			public CompletionStage<LeaseGrant> tryLeaseAsync(String key, long minimum, long maximum) {
				return real.tryLeaseAsync(key, minimum, maximum).thenCombine(gate, (grant, open) -> grant);
			}

			@Override
			public CompletionStage<Long> returnLeasedAsync(String key, LeaseGrant grant, long permits) {
				return real.returnLeasedAsync(key, grant, permits);
			}

			@Override
			public Decision peek(String key) {
				return real.peek(key);
			}

			@Override
			public void reset(String key) {
				real.reset(key);
			}

		};
		WaitingRateLimiter waiting = new WaitingRateLimiter(gated);
		CompletableFuture<Decision> caller = waiting.acquireAsync("k", 2, Duration.ofSeconds(30));
		assertThat(real.peek("k").remaining()).as("granted, the answer held").isEqualTo(3);
		caller.cancel(false);
		gate.complete(null);
		assertThat(waiting.abandoned()).isEqualTo(1);
		assertThat(waiting.returned()).isEqualTo(2);
		assertThat(real.peek("k").remaining()).as("both permits back in the window").isEqualTo(5);
	}

	@Test
	void aPermitGrantedToACallerThatGaveUpWithNobodyBehindIsCountedAbandoned() throws Exception {
		Held limiter = new Held(this.backend.create(Policy.of("lost", Algorithm.FIXED_WINDOW, "1/1h")));
		limiter.answers.add(CompletableFuture.completedFuture(refusal(limiter, Duration.ofMillis(20))));
		CompletableFuture<Decision> inFlight = new CompletableFuture<>();
		limiter.answers.add(inFlight);
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		CompletableFuture<Decision> first = waiting.acquireAsync("k", 1, Duration.ofMillis(200));
		assertThat(first.get(30, TimeUnit.SECONDS).allowed()).isFalse();
		inFlight.complete(this.backend.create(Policy.of("grant", Algorithm.FIXED_WINDOW, "5/1h")).tryAcquire("g"));
		assertThat(waiting.abandoned()).isEqualTo(1);
		assertThat(waiting.waiting()).isZero();
	}

	@Test
	void manyThreadsWaitingOnOneKeyAreAllServedAtAboutOneCallPerPermit() throws Exception {
		// 20 permits a second in fixed windows; 8 threads each wanting 5: 40 permits over 2 to 3 windows
		Counted limiter = new Counted(this.backend.create(Policy.of("shared", Algorithm.FIXED_WINDOW, "20/1s")));
		int admitted = admittedByCallers(List.of(new WaitingRateLimiter(limiter)), 8, 5);
		assertThat(admitted).isEqualTo(40);
		assertThat(limiter.admitted.get()).isEqualTo(40);
		// one refusal per window boundary at most (the head's, which tells it when the window turns): the windows
		// spanned are at most 4, whatever the machine's speed
		assertThat(limiter.calls.get()).isBetween(40, 46);
		assertThat(limiter.mostInFlight.get()).isEqualTo(1);
	}

	@Test
	void instancesContendingForOneKeyBackOffInsteadOfAllAskingForEveryPermit() throws Exception {
		// three instances (each its own line) of 6 threads on one shared limit of 100 a second, 144 permits in all:
		// asking all at once when each permit is due would cost about 3 calls a permit (4 with the next caller of the
		// winner's line asking at once into an empty bucket); a caller refused when its permit was due backs off, and
		// the caller after an admission that left no permit waits for the next one
		Counted limiter = new Counted(this.backend.create(Policy.of("shared", Algorithm.TOKEN_BUCKET, "100/1s")), false);
		drain(limiter, "k");
		int callsBefore = limiter.calls.get();
		int admittedBefore = limiter.admitted.get();
		int admitted = admittedByCallers(List.of(new WaitingRateLimiter(limiter), new WaitingRateLimiter(limiter),
				new WaitingRateLimiter(limiter)), 6, 8);
		int permits = limiter.admitted.get() - admittedBefore;
		int calls = limiter.calls.get() - callsBefore;
		assertThat(admitted).isEqualTo(144);
		assertThat(permits).isEqualTo(144);
		assertThat((double) calls / permits).as("%d calls for %d permits", calls, permits).isLessThan(2.5);
	}

	@ParameterizedTest(name = "reserving {0}")
	@ValueSource(booleans = { false, true })
	void everyGrantReachesACallerOrIsCountedAbandonedWhateverCallersDo(boolean reserving) throws Exception {
		// 16 threads, each 40 callers of one of four keys with random costs and maximum waits, a fifth cancelled at a
		// random moment, every answer coming up to 10 ms after the limiter decided (as over a network, so that callers
		// give up while their call is in flight): whatever the interleaving, every permit the limiter granted went to exactly one caller that
		// got it, or is counted abandoned; every caller ends; no line is left behind
		// (reserving: a caller cancelled before its reserved permits are due counts them abandoned)
		Counted limiter = new Slow(this.backend.create(Policy.of("stress", Algorithm.TOKEN_BUCKET, "20/100ms")),
				reserving);
		WaitingRateLimiter waiting = new WaitingRateLimiter(limiter);
		List<CompletableFuture<Decision>> callers = new CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 16; t++) {
			Thread thread = new Thread(() -> {
				java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
				for (int i = 0; i < 40; i++) {
					CompletableFuture<Decision> caller = waiting.acquireAsync("k" + random.nextInt(4),
							1 + random.nextInt(2), Duration.ofMillis(1 + random.nextInt(100)));
					callers.add(caller);
					if (random.nextInt(5) == 0) {
						java.util.concurrent.locks.LockSupport.parkNanos(random.nextLong(2_000_000));
						caller.cancel(false);
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join(60_000);
		}
		for (CompletableFuture<Decision> caller : callers) {
			try {
				caller.get(30, TimeUnit.SECONDS);
			}
			catch (CancellationException ex) {
				// cancelled by its thread
			}
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while ((waiting.waiting() > 0 || limiter.inFlight.get() > 0) && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		assertThat(waiting.waiting()).isZero();
		assertThat(limiter.inFlight.get()).isZero();
		long delivered = callers.stream()
			.filter((caller) -> !caller.isCancelled())
			.filter((caller) -> caller.join().allowed())
			.count();
		assertThat(callers).hasSize(640);
		assertThat(limiter.admitted.get()).as("grants: %d delivered, %d abandoned", delivered, waiting.abandoned())
			.isEqualTo(delivered + waiting.abandoned());
		assertThat(limiter.mostInFlight.get()).as("one call in flight per key").isLessThanOrEqualTo(4);
		System.out.println("Stress: " + delivered + " delivered, " + waiting.abandoned() + " abandoned, "
				+ callers.stream().filter(CompletableFuture::isCancelled).count() + " cancelled");
	}

	/**
	 * Runs callers on each instance, each its own thread asking for one permit at a time, waiting up to 30 s.
	 * @return the permits the callers got
	 */
	private static int admittedByCallers(List<WaitingRateLimiter> instances, int threadsPerInstance, int calls)
			throws InterruptedException {
		AtomicInteger admitted = new AtomicInteger();
		List<Thread> threads = new ArrayList<>();
		for (WaitingRateLimiter waiting : instances) {
			for (int t = 0; t < threadsPerInstance; t++) {
				Thread thread = new Thread(() -> {
					for (int i = 0; i < calls; i++) {
						if (waiting.acquire("k", 1, Duration.ofSeconds(30)).allowed()) {
							admitted.incrementAndGet();
						}
					}
				});
				thread.start();
				threads.add(thread);
			}
		}
		for (Thread thread : threads) {
			thread.join(60_000);
		}
		return admitted.get();
	}

	private static void drain(RateLimiter limiter, String key) {
		while (limiter.tryAcquire(key).allowed()) {
			// take every permit in hand
		}
	}

	private static Decision refusal(RateLimiter limiter, Duration retryAfter) {
		Decision decision = limiter.peek("refused");
		return new Decision(false, decision.limit(), 0, retryAfter, retryAfter, retryAfter, true,
				List.of(decision.limit()));
	}

	/**
	 * A real limiter, counted: its calls, its admissions, the most calls in flight at once.
	 */
	static class Counted implements RateLimiter {

		final RateLimiter real;

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger admitted = new AtomicInteger();

		final AtomicInteger inFlight = new AtomicInteger();

		final AtomicInteger mostInFlight = new AtomicInteger();

		final boolean reserving;

		Counted(RateLimiter real) {
			this(real, true);
		}

		/**
		 * A real limiter, counted, that reserves when {@code reserving} and the real limiter does (a subclass whose
		 * answers the test shapes never does): the lines of callers of a limiter that does not reserve (the windows,
		 * a leased limiter) are tested with one that would.
		 */
		Counted(RateLimiter real, boolean reserving) {
			this.real = real;
			this.reserving = reserving;
		}

		/** Counted as any call. */
		@Override
		public CompletionStage<Decision> tryReserveAsync(String key, long permits, Duration maxWait) {
			if (!reserves()) {
				return tryAcquireAsync(key, permits);
			}
			this.calls.incrementAndGet();
			this.mostInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
			return reservation(key, permits, maxWait).whenComplete((decision, error) -> {
				this.inFlight.decrementAndGet();
				if (decision != null && decision.allowed()) {
					this.admitted.incrementAndGet();
				}
			});
		}

		@Override
		public boolean reserves() {
			return this.reserving && this.real.reserves();
		}

		CompletionStage<Decision> reservation(String key, long permits, Duration maxWait) {
			return this.real.tryReserveAsync(key, permits, maxWait);
		}

		@Override
		public Policy policy() {
			return this.real.policy();
		}

		@Override
		public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
			this.calls.incrementAndGet();
			this.mostInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
			return answer(key, permits).whenComplete((decision, error) -> {
				this.inFlight.decrementAndGet();
				if (decision != null && decision.allowed()) {
					this.admitted.incrementAndGet();
				}
			});
		}

		CompletionStage<Decision> answer(String key, long permits) {
			return this.real.tryAcquireAsync(key, permits);
		}

		@Override
		public Decision peek(String key) {
			return this.real.peek(key);
		}

		@Override
		public void reset(String key) {
			this.real.reset(key);
		}

	}

	/**
	 * A real limiter whose answers come up to 10 ms after it decided, as over a slow network.
	 */
	static final class Slow extends Counted {

		Slow(RateLimiter real, boolean reserving) {
			super(real, reserving);
		}

		@Override
		CompletionStage<Decision> answer(String key, long permits) {
			return late(this.real.tryAcquire(key, permits));
		}

		@Override
		CompletionStage<Decision> reservation(String key, long permits, Duration maxWait) {
			return late(this.real.tryReserveAsync(key, permits, maxWait).toCompletableFuture().join());
		}

		private static CompletionStage<Decision> late(Decision decision) {
			long delay = java.util.concurrent.ThreadLocalRandom.current().nextLong(10_000);
			return CompletableFuture.supplyAsync(() -> decision,
					CompletableFuture.delayedExecutor(delay, TimeUnit.MICROSECONDS));
		}

	}

	/**
	 * A limiter whose answers the test gives, in order.
	 */
	static final class Held extends Counted {

		final BlockingQueue<CompletableFuture<Decision>> answers = new LinkedBlockingQueue<>();

		Held(RateLimiter real) {
			this(real, false);
		}

		Held(RateLimiter real, boolean reserving) {
			super(real, reserving);
		}

		@Override
		CompletionStage<Decision> reservation(String key, long permits, Duration maxWait) {
			return answer(key, permits);
		}

		@Override
		CompletionStage<Decision> answer(String key, long permits) {
			CompletableFuture<Decision> next = this.answers.poll();
			return (next != null) ? next : CompletableFuture.failedFuture(new IllegalStateException("no answer"));
		}

	}

}
