package io.github.ratelimit.test;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waits for what another thread does: spinning, yielding, at most 30 s (a bound for a broken run, not a timing).
 */
public final class Await {

	private Await() {
	}

	/**
	 * Waits until the condition holds, failing after 30 s.
	 * @param condition what to wait for
	 */
	public static void until(BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as("waited 30 s").isNegative();
			Thread.onSpinWait();
			Thread.yield();
		}
	}

}
