package io.github.ratelimit.resilience;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.resilience.FrozenApplication.Counts;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application frozen while Redis stays healthy (its JVM stopped with {@code SIGSTOP} for 300 ms, then resumed with
 * {@code SIGCONT}, as a GC pause or a container's CPU throttling does) admits no more than its limit: when it resumes,
 * its decisions' timeouts fire late while Redis' replies wait unread in the socket, and a reply that is there is
 * read, not failed open. Counted exactly: Redis admits the capacity, and so must the application.
 */
class FrozenApplicationTests {

	private static final long CAPACITY = 100;

	@Test
	void anApplicationFrozenUnderLoadAdmitsNoMoreThanItsLimit() throws Exception {
		TestRedis redis = TestRedis.get();
		try (FrozenApplication application = FrozenApplication.start(redis.host(), redis.port(),
				"frozen-" + System.nanoTime(), CAPACITY + "/1d", 8)) {
			application.decide();
			for (int i = 0; i < 5; i++) {
				// the application runs a moment (its limit is spent within it), then is frozen with calls in flight
				Thread.sleep(100);
				signal("STOP", application.pid());
				Thread.sleep(300);
				signal("CONT", application.pid());
			}
			Counts counts = application.stop();
			assertThat(counts.admitted()).as("requests admitted of %d: %s", CAPACITY, counts).isEqualTo(CAPACITY);
		}
	}

	private static void signal(String signal, long pid) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
		assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
		assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
	}

}
