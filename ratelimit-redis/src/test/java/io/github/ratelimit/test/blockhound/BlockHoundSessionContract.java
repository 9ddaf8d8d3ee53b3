package io.github.ratelimit.test.blockhound;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a module that registers {@link BlockHoundSession} proves with a subclass of its own: its tests run with
 * BlockHound installed, so a blocking call on a non-blocking thread fails.
 */
public abstract class BlockHoundSessionContract {

	@Test
	void blockingCallOnANonBlockingThreadFails() {
		Mono<Long> sleepOnParallelScheduler = Mono.delay(Duration.ofMillis(1)).doOnNext((tick) -> {
			try {
				Thread.sleep(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> sleepOnParallelScheduler.block(Duration.ofSeconds(30)))
			.havingRootCause()
			.isInstanceOf(BlockingOperationError.class);
	}

}
