package io.github.ratelimit.core;

/**
 * What one limit of a policy says about one request, as computed by a backend in integer microseconds.
 *
 * @param limit the limit
 * @param allowed whether this limit alone admits the request
 * @param remaining the permits left under this limit after the decision, at least 0
 * @param retryAfterMicros the time until this limit could admit the request, 0 when it admits it now; for a
 * reservation it admitted, the time until the permits it took are due
 * @param resetAfterMicros the time until this limit is fully replenished
 * @param nextPermitMicros the time until this limit has more permits than {@code remaining} (draft-10's {@code t}:
 * until additional quota is available); 0 when it is full
 */
public record LimitDecision(Limit limit, boolean allowed, long remaining, long retryAfterMicros, long resetAfterMicros,
		long nextPermitMicros) {

	/**
	 * Whether no amount of waiting lets this limit admit {@code permits}.
	 * @param permits the permits asked for
	 * @return whether the request exceeds this limit's capacity
	 */
	boolean neverAdmits(long permits) {
		return permits > this.limit.capacity();
	}

}
