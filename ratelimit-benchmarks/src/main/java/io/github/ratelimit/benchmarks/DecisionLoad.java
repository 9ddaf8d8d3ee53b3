package io.github.ratelimit.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import com.sun.management.OperatingSystemMXBean;

/**
 * A timed loop: a number of threads decide for random clients as fast as they can; decisions made during the
 * warm-up are discarded and the rest are counted over the measured interval (drawn out, if need be, until a call has
 * ended in it), together with the JVM's CPU time and what Redis reports about the same interval.
 */
final class DecisionLoad {

	/** The longest a measured interval is drawn out for its first decision. */
	private static final Duration MOST_TO_WAIT_FOR_A_DECISION = Duration.ofSeconds(30);

	/** Clients the load spreads over. */
	static final int KEYS = 10_000;

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private final Duration warmUp;

	private final Duration measure;

	private final CpuPinning pinning;

	DecisionLoad(Duration warmUp, Duration measure, CpuPinning pinning) {
		this.warmUp = warmUp;
		this.measure = measure;
		this.pinning = pinning;
	}

	Duration measure() {
		return this.measure;
	}

	Measurement run(Contender contender, int threads, RedisAdmin redis) {
		LongAdder decisions = new LongAdder();
		LongAdder errors = new LongAdder();
		AtomicReference<RuntimeException> firstError = new AtomicReference<>();
		AtomicBoolean stop = new AtomicBoolean();
		List<Thread> workers = new ArrayList<>(threads);
		Runnable loop = () -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			while (!stop.get()) {
				try {
					contender.decide(random.nextInt(KEYS));
					decisions.increment();
				}
				catch (RuntimeException ex) {
					errors.increment();
					if (firstError.compareAndSet(null, ex)) {
						System.err.println("[benchmarks] first error of " + contender + ": " + ex);
					}
				}
			}
		};
		for (int i = 0; i < threads; i++) {
			Thread worker = new Thread(loop, "decision-load-" + i);
			worker.setDaemon(true);
			workers.add(worker);
			worker.start();
		}
		try {
			Thread.sleep(this.warmUp.toMillis());
			RedisStats redisBefore = redis.stats();
			CpuUsage cpusBefore = CpuUsage.now();
			long startDecisions = decisions.sum();
			long startErrors = errors.sum();
			long startCpu = OS.getProcessCpuTime();
			long start = System.nanoTime();
			Thread.sleep(this.measure.toMillis());
			// an interval in which no call ended (a short one on a loaded machine) measures nothing: it lasts until one
			// has, so that every measurement has a rate
			long deadline = start + MOST_TO_WAIT_FOR_A_DECISION.toNanos();
			while (decisions.sum() + errors.sum() == startDecisions + startErrors && System.nanoTime() - deadline < 0) {
				Thread.sleep(1);
			}
			long made = decisions.sum() - startDecisions;
			long failed = errors.sum() - startErrors;
			long cpu = OS.getProcessCpuTime() - startCpu;
			double seconds = (System.nanoTime() - start) / 1e9;
			CpuUsage cpus = CpuUsage.now();
			RedisStats.Delta redisDelta = redis.stats().since(redisBefore, seconds);
			return new Measurement(made / seconds, made, failed, cpu / 1e9, redisDelta,
					cpus.busySince(cpusBefore, this.pinning.clientCpu()),
					cpus.busySince(cpusBefore, this.pinning.redisCpu()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while measuring", ex);
		}
		finally {
			stop.set(true);
			for (Thread worker : workers) {
				try {
					worker.join(10_000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}
	}

}
