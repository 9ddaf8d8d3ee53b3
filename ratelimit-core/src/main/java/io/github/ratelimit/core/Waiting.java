package io.github.ratelimit.core;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import org.jspecify.annotations.Nullable;

/**
 * The one place the core API waits: a caller of a blocking method ({@link RateLimiter#tryAcquire(String, long)},
 * {@link RateLimiter#peek(String)}, {@link RateLimiter#reset(String)}, {@link WaitingRateLimiter#acquire}) waits for
 * the asynchronous answer on its own thread. It waits without a bound of its own: every backend bounds its calls (Redis by the decision timeout).
 */
final class Waiting {

	private Waiting() {
	}

	/**
	 * The refusal a request for one more permit would get right after an admission that left none under its limit:
	 * the next permit after the admission's {@code nextPermitAfter}.
	 * @param admission an admission
	 * @return the refusal, or {@code null} when the admission left permits
	 */
	static @Nullable Decision emptied(Decision admission) {
		if (!admission.allowed() || admission.remaining() > 0 || admission.nextPermitAfter().isZero()) {
			return null;
		}
		return new Decision(false, admission.limit(), 0, admission.nextPermitAfter(), admission.resetAfter(),
				admission.nextPermitAfter(), true, List.of(admission.limit()));
	}

	/**
	 * Waits for an answer.
	 * @param <T> the answer's type
	 * @param answer the answer
	 * @return the answer
	 * @throws RuntimeException the failure the answer completed with, as it is
	 * @throws CancellationException when the calling thread is interrupted while it waits (its interrupt flag is
	 * kept)
	 */
	static <T> T await(CompletionStage<T> answer) {
		return await(answer, false);
	}

	/**
	 * Waits for an answer, or for a permit.
	 * @param <T> the answer's type
	 * @param answer the answer
	 * @param forPermit whether the answer is a wait for a permit ({@link WaitingRateLimiter#acquire}), which an
	 * interrupt cancels, giving the caller's place up; a decision is not cancelled (the backend makes it all the same)
	 * @return the answer
	 * @throws RuntimeException the failure the answer completed with, as it is
	 * @throws CancellationException when the calling thread is interrupted while it waits (its interrupt flag is
	 * kept)
	 */
	static <T> T await(CompletionStage<T> answer, boolean forPermit) {
		CompletableFuture<T> future = answer.toCompletableFuture();
		try {
			return future.get();
		}
		catch (InterruptedException ex) {
			if (forPermit) {
				future.cancel(false);
			}
			Thread.currentThread().interrupt();
			CancellationException interrupted = new CancellationException(
					"Interrupted while waiting for a " + (forPermit ? "permit" : "decision"));
			interrupted.initCause(ex);
			throw interrupted;
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new CompletionException(cause);
		}
	}

}
