package io.github.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;

/**
 * A Redis call that did not answer within the decision timeout, whose reply may still come: the call was sent, and
 * Redis may carry it out after its caller stopped waiting. The reply, if it comes, completes {@link #lateDecision()}
 * once a limiter has said how to read it as a decision ({@link #decided}).
 */
final class LateReplyTimeoutException extends QueryTimeoutException {

	private final transient CompletionStage<?> lateReply;

	private final boolean decision;

	private LateReplyTimeoutException(String message, CompletionStage<?> lateReply, boolean decision) {
		super(message);
		this.lateReply = lateReply;
		this.decision = decision;
	}

	/**
	 * A timeout whose call's reply, if it comes, completes a stage.
	 * @param message what timed out
	 * @param lateReply completes with the reply when it comes
	 */
	LateReplyTimeoutException(String message, CompletionStage<?> lateReply) {
		this(message, lateReply, false);
	}

	/**
	 * A decision's failure as it goes on: a timeout with a late reply becomes one whose reply is read as the decision
	 * it is; any other failure stays what it was.
	 * @param error the failure of a decision's script call
	 * @param reading reads the script's reply as the decision
	 * @return what to throw
	 */
	@SuppressWarnings("unchecked")
	static CompletionException decided(Throwable error, Function<List<Object>, Decision> reading) {
		Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
		if (cause instanceof LateReplyTimeoutException timeout) {
			return new CompletionException(new LateReplyTimeoutException(timeout.getMessage(),
					timeout.lateReply.thenApply((reply) -> reading.apply((List<Object>) reply)), true));
		}
		return (error instanceof CompletionException completion) ? completion : new CompletionException(error);
	}

	/**
	 * The decision Redis' late reply makes, for a decision's timeout.
	 * @return the late decision, or {@code null} when this timeout is not a decision's
	 */
	@SuppressWarnings("unchecked")
	@Nullable CompletionStage<Decision> lateDecision() {
		return this.decision ? (CompletionStage<Decision>) this.lateReply : null;
	}

}
