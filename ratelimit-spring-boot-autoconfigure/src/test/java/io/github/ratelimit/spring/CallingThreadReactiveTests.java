package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The one wait of the servlet filter and blocking {@code @RateLimited} methods ({@link CallingThread}): a continuation
 * is handed to the waiting thread from wherever the backend answered, an event loop included, so handing it over
 * must never block. Runs under BlockHound (this is a {@code *Reactive*Tests} class), from Reactor's parallel threads,
 * which BlockHound treats as event loops: with a hand-over that takes a lock (a {@code LinkedBlockingQueue}, as
 * before), the waiting thread holding it now and then made the hand-over park, BlockHound failed it, the continuation
 * was lost and the wait never ended (a servlet request of {@code MvcWebFluxResponseContractTests} went unanswered).
 */
class CallingThreadReactiveTests {

	private static final int CHAINS = 20_000;

	private static final int HAND_OVERS = 4;

	@Test
	void continuationsHandedOverFromEventLoopsNeverBlockThemAndAreAllRunOnTheWaitingThread() {
		Scheduler eventLoops = Schedulers.parallel();
		assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
			Thread waiting = Thread.currentThread();
			for (int i = 0; i < CHAINS; i++) {
				int chain = i;
				int answer = CallingThread.await((executor) -> {
					CompletableFuture<Integer> result = new CompletableFuture<>();
					AtomicInteger left = new AtomicInteger(HAND_OVERS);
					for (int h = 0; h < HAND_OVERS; h++) {
						// several event loops hand continuations over at once, and the waiting thread takes them
						eventLoops.schedule(() -> executor.execute(() -> {
							assertThat(Thread.currentThread()).isSameAs(waiting);
							if (left.decrementAndGet() == 0) {
								eventLoops.schedule(() -> result.complete(chain));
							}
						}));
					}
					return result;
				});
				assertThat(answer).isEqualTo(chain);
			}
		});
	}

}
