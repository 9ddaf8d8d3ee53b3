package io.github.ratelimit.spring;

import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * The edge where a caller that must have its answer (the servlet filter, a blocking {@code @RateLimited} method) waits
 * for a {@link RateLimitChain}: the chain's continuations run on the calling thread itself, as they would had it
 * decided step by step, so that a key or plan resolver of the application's never runs on the backend's client's
 * event loop. The calling thread waits once per request, each decision bounded by the decision timeout. An interrupt
 * while it waits does not cut the wait short (the decision is at most the timeout away); the thread keeps it.
 * <p>
 * Handing a continuation over never blocks the thread that hands it (often an event loop): it goes into a lock-free
 * queue and unparks the waiting thread. A hand-over through a lock (a {@code LinkedBlockingQueue}, once) could park an
 * event loop while the waiting thread held the lock; under BlockHound that lost the continuation and the request
 * was never answered ({@code CallingThreadReactiveTests}).
 */
final class CallingThread implements Executor {

	private final Queue<Runnable> continuations = new ConcurrentLinkedQueue<>();

	private final Thread waiting = Thread.currentThread();

	private CallingThread() {
	}

	/**
	 * Starts a chain whose continuations the calling thread runs, and waits for its result.
	 * @param <T> the result's type
	 * @param chain starts the chain with the executor of its continuations
	 * @return the result
	 * @throws RuntimeException the chain's error, as it is
	 * @throws Error the chain's error, as it is
	 */
	static <T> T await(Function<Executor, CompletableFuture<T>> chain) {
		return await(chain, false);
	}

	/**
	 * Starts a chain whose continuations the calling thread runs, and waits for its result; a chain that may wait
	 * for permits is interruptible.
	 * @param <T> the result's type
	 * @param chain starts the chain with the executor of its continuations
	 * @param interruptible whether an interrupt cancels the chain (one that waits for permits, for up to its maximum
	 * wait) rather than being kept for later (one that waits for decisions, each bounded by the decision timeout)
	 * @return the result
	 * @throws RuntimeException the chain's error, as it is
	 * @throws Error the chain's error, as it is
	 * @throws CancellationException when interruptible and interrupted: the chain is cancelled and the thread keeps
	 * its interrupt flag
	 */
	static <T> T await(Function<Executor, CompletableFuture<T>> chain, boolean interruptible) {
		CallingThread thread = new CallingThread();
		CompletableFuture<T> result = chain.apply(thread);
		if (!result.isDone()) {
			result.whenComplete((value, error) -> LockSupport.unpark(thread.waiting));
			thread.runUntilDone(result, interruptible);
		}
		try {
			return result.join();
		}
		catch (CompletionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	@Override
	public void execute(Runnable continuation) {
		this.continuations.add(continuation);
		LockSupport.unpark(this.waiting);
	}

	/**
	 * Runs the continuations handed over until the result is complete, parking while there are none: an unpark that
	 * comes before the park leaves it a permit, so no hand-over is missed, and a wake-up for nothing only loops.
	 */
	private void runUntilDone(CompletableFuture<?> result, boolean interruptible) {
		boolean interrupted = false;
		try {
			while (!result.isDone()) {
				Runnable next = this.continuations.poll();
				if (next != null) {
					next.run();
				}
				else {
					LockSupport.park(this);
					interrupted |= Thread.interrupted();
					if (interrupted && interruptible) {
						result.cancel(false);
					}
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
