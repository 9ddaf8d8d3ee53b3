package io.github.ratelimit.gateway;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The WebFlux gateway's tests run with BlockHound installed ({@link io.github.ratelimit.test.blockhound.BlockHoundSession}): a blocking call on a
 * non-blocking thread fails.
 */
class BlockHoundSessionTests {

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
