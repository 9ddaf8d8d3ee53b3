package io.github.ratelimit.core;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The answer to one request for permits. Every value describes the limit that binds: when denied, the limit that
 * refused with the longest wait; when allowed, the limit with the fewest permits left.
 *
 * @param allowed whether the permits were granted (and consumed from every limit)
 * @param limit the limit that binds
 * @param remaining the permits left under that limit, at least 0
 * @param retryAfter how long until this request could succeed; zero when allowed, except for a reservation
 * ({@link RateLimiter#tryReserveAsync}), where it is how long until the permits taken are due. When the request can never succeed
 * ({@code satisfiable} is false) this is the limit's period, a stand-in for "never": such a request consumes nothing,
 * and reports the client's state under the limit its cost exceeds as it is ({@code remaining}, {@code resetAfter},
 * {@code nextPermitAfter}), or, when the backend could not read it, {@code remaining} 0 and a period for both waits
 * @param resetAfter how long until that limit is fully replenished
 * @param nextPermitAfter how long until that limit has more permits than {@code remaining}: draft-10's {@code t},
 * the time until additional quota is available; zero when the limit is full. Never longer than {@code retryAfter} for
 * a satisfiable refusal
 * @param satisfiable false when the request asks for more permits than the limit's capacity, so no amount of
 * waiting can admit it
 * @param violated the limits that refused the request, in the policy's order (draft-10's {@code violated-policies}):
 * when it can never succeed, those whose capacity is below the cost; empty when allowed
 */
public record Decision(boolean allowed, Limit limit, long remaining, Duration retryAfter, Duration resetAfter,
		Duration nextPermitAfter, boolean satisfiable, List<Limit> violated) {

	/**
	 * Combines the outcomes of every limit of a policy into one decision. The request is allowed only if every limit
	 * allows it.
	 * @param outcomes one outcome per limit, in the policy's order
	 * @param permits the permits asked for
	 * @return the decision
	 */
	public static Decision of(List<LimitDecision> outcomes, long permits) {
		LimitDecision fewestRemaining = null;
		LimitDecision longestWait = null;
		LimitDecision tooSmall = null;
		List<Limit> violated = List.of();
		long due = 0;
		for (int i = 0; i < outcomes.size(); i++) {
			// by index: an iterator for every decision's one or two limits is garbage on the exact path
			LimitDecision outcome = outcomes.get(i);
			if (outcome.neverAdmits(permits)) {
				if (tooSmall == null) {
					tooSmall = outcome;
					violated = new ArrayList<>(outcomes.size());
				}
				violated.add(outcome.limit());
			}
			else if (!outcome.allowed()) {
				if (longestWait == null || outcome.retryAfterMicros() > longestWait.retryAfterMicros()) {
					longestWait = outcome;
				}
				if (tooSmall == null) {
					if (violated.isEmpty()) {
						violated = new ArrayList<>(outcomes.size());
					}
					violated.add(outcome.limit());
				}
			}
			else {
				if (fewestRemaining == null || outcome.remaining() < fewestRemaining.remaining()) {
					fewestRemaining = outcome;
				}
				// a reservation's permits are due when every limit has them
				due = Math.max(due, outcome.retryAfterMicros());
			}
		}
		if (tooSmall != null) {
			return new Decision(false, tooSmall.limit(), tooSmall.remaining(), tooSmall.limit().period(),
					micros(tooSmall.resetAfterMicros()), micros(tooSmall.nextPermitMicros()), false,
					List.copyOf(violated));
		}
		if (longestWait != null) {
			return new Decision(false, longestWait.limit(), longestWait.remaining(),
					micros(longestWait.retryAfterMicros()), micros(longestWait.resetAfterMicros()),
					micros(longestWait.nextPermitMicros()), true, List.copyOf(violated));
		}
		if (fewestRemaining == null) {
			throw new IllegalArgumentException("A decision needs the outcome of at least one limit");
		}
		return new Decision(true, fewestRemaining.limit(), fewestRemaining.remaining(), micros(due),
				micros(fewestRemaining.resetAfterMicros()), micros(fewestRemaining.nextPermitMicros()), true,
				List.of());
	}

	/**
	 * {@link #retryAfter()} in whole seconds, rounded up, at least 1: the value of an HTTP {@code Retry-After}.
	 * @return the seconds to wait before retrying
	 */
	public long retryAfterSeconds() {
		return Math.max(1, ceilSeconds(this.retryAfter));
	}

	/**
	 * {@link #nextPermitAfter()} in whole seconds, rounded up: draft-10's {@code t}.
	 * @return the seconds until additional quota is available
	 */
	public long nextPermitAfterSeconds() {
		return ceilSeconds(this.nextPermitAfter);
	}

	/**
	 * {@link #resetAfter()} in whole seconds, rounded up.
	 * @return the seconds until the binding limit is fully replenished
	 */
	public long resetAfterSeconds() {
		return ceilSeconds(this.resetAfter);
	}

	private static long ceilSeconds(Duration duration) {
		return duration.getSeconds() + ((duration.getNano() > 0) ? 1 : 0);
	}

	private static Duration micros(long micros) {
		return Duration.of(micros, ChronoUnit.MICROS);
	}

}
