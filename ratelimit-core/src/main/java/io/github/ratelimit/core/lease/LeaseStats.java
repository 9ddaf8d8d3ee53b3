package io.github.ratelimit.core.lease;

/**
 * What a leased limiter's leases did, live; read by metrics and the endpoint without
 * any cost on the decision path.
 */
public interface LeaseStats {

	/** @return lease calls made to the shared state, granted or not (counted as each is started) */
	long renewals();

	/** @return permits taken by granted leases */
	long permitsLeased();

	/** @return permits given back to the shared state */
	long permitsReturned();

	/** @return permits that expired unused in a lease (or were not taken back) */
	long permitsExpired();

	/** @return requests decided from a lease in hand, without a call */
	long leaseHits();

	/**
	 * @return requests that the lease in hand did not cover and that waited for a renewal (served from its grant,
	 * refused by it, or decided exactly after waiting three): one client faster than a batch per round trip on this
	 * instance, or a renewal ahead of need that came too late
	 */
	long waitedForRenewal();

	/**
	 * @return requests decided exactly by the shared state, one call each, allowed or not: a key too cold for a lease
	 * to pay (an adaptive lease would cover that request only), a request that waited three renewals, or one whose
	 * lease was just retired
	 */
	long decidedExactly();

	/** @return permits admitted by the requests decided exactly */
	long permitsAdmittedExactly();

	/** @return keys with a lease in hand now */
	long leasesHeld();

	/** @return unused permits in the leases in hand now */
	long permitsHeld();

}
