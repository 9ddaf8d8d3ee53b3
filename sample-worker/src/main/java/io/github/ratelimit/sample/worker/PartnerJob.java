package io.github.ratelimit.sample.worker;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.spring.RateLimitExceededException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The worker's job: starts {@code sample.worker.demand} partner calls a second, whatever the shared rate admits, and
 * logs once a second how many it asked for, how many were made and how many gave up (no permit within the wait).
 * Runs while the application runs; stopping cancels the calls still waiting.
 */
@Component
public class PartnerJob implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(PartnerJob.class);

	private final PartnerClient client;

	private final int demand;

	private final Set<CompletableFuture<String>> pending = ConcurrentHashMap.newKeySet();

	private final AtomicLong asked = new AtomicLong();

	private final AtomicLong made = new AtomicLong();

	private final AtomicLong gaveUp = new AtomicLong();

	private final AtomicLong failed = new AtomicLong();

	private volatile @Nullable String lastFailure;

	private @Nullable ScheduledExecutorService scheduler;

	/** Guards {@link #logged}; not the job's own monitor, which {@link #stop()} holds while the scheduler ends. */
	private final Object summary = new Object();

	private Counts logged = new Counts(0, 0, 0, 0);

	PartnerJob(PartnerClient client, WorkerProperties properties) {
		this.client = client;
		this.demand = properties.demand();
	}

	@Override
	public synchronized void start() {
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "partner-job");
			thread.setDaemon(false);
			return thread;
		});
		scheduler.scheduleAtFixedRate(this::call, 0, TimeUnit.SECONDS.toNanos(1) / this.demand, TimeUnit.NANOSECONDS);
		scheduler.scheduleAtFixedRate(this::logSummary, 1, 1, TimeUnit.SECONDS);
		this.scheduler = scheduler;
		logger.info("Calling the partner API " + this.demand + " times a second, each call waiting up to 2 s for its "
				+ "permit of policy 'partner'");
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService scheduler = this.scheduler;
		if (scheduler == null) {
			return;
		}
		this.scheduler = null;
		scheduler.shutdownNow();
		try {
			scheduler.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.pending.forEach((call) -> call.cancel(false));
		logSummary();
	}

	@Override
	public synchronized boolean isRunning() {
		return this.scheduler != null;
	}

	/**
	 * What the job did since it started.
	 * @return the counts
	 */
	public Counts counts() {
		return new Counts(this.asked.get(), this.made.get(), this.gaveUp.get(), this.failed.get());
	}

	private void call() {
		this.asked.incrementAndGet();
		CompletableFuture<String> call = startCall();
		this.pending.add(call);
		call.whenComplete((answer, error) -> {
			this.pending.remove(call);
			Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause()
					: error;
			if (cause == null) {
				this.made.incrementAndGet();
			}
			else if (cause instanceof RateLimitExceededException) {
				this.gaveUp.incrementAndGet();
			}
			else if (!call.isCancelled()) {
				this.failed.incrementAndGet();
				this.lastFailure = cause.toString();
			}
		});
	}

	/** A call's future, also when the call throws: counted, and the schedule goes on (a task that throws ends it). */
	private CompletableFuture<String> startCall() {
		try {
			return this.client.call();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** One line a second, never a stack trace per call: a refused call is the expected overflow, not an error. */
	private void logSummary() {
		Counts now;
		Counts before;
		synchronized (this.summary) {
			now = counts();
			before = this.logged;
			this.logged = now;
		}
		String line = String.format("last second: asked %d, made %d, gave up %d (no permit within 2 s); since start: "
				+ "asked %d, made %d, gave up %d", now.asked() - before.asked(), now.made() - before.made(),
				now.gaveUp() - before.gaveUp(), now.asked(), now.made(), now.gaveUp());
		if (now.failed() > before.failed()) {
			logger.warn(line + "; " + (now.failed() - before.failed()) + " failed, the last with " + this.lastFailure);
		}
		else {
			logger.info(line);
		}
	}

	/**
	 * What the job did.
	 * @param asked the calls started
	 * @param made the calls admitted and answered by the partner
	 * @param gaveUp the calls refused: no permit came within their wait
	 * @param failed the calls that failed otherwise (the partner API not answering, for one)
	 */
	public record Counts(long asked, long made, long gaveUp, long failed) {
	}

}
