package io.github.ratelimit.core.lease;

import java.util.concurrent.atomic.LongAdder;

/**
 * A leased limiter's {@link LeaseStats}, kept in {@link LongAdder}s so that counting costs the decision path no
 * contention.
 */
final class LeaseCounters implements LeaseStats {

	final LongAdder renewals = new LongAdder();

	final LongAdder leased = new LongAdder();

	final LongAdder returned = new LongAdder();

	final LongAdder expired = new LongAdder();

	final LongAdder local = new LongAdder();

	final LongAdder waited = new LongAdder();

	/** Decisions of a leased key made exactly by the delegate: too cold for a lease to pay, or its lease retired. */
	final LongAdder exact = new LongAdder();

	final LongAdder exactAdmitted = new LongAdder();

	/** Of the renewals, those started ahead of need (a lease in hand below its low-water mark). */
	final LongAdder renewedAhead = new LongAdder();

	final LongAdder leasesHeld = new LongAdder();

	final LongAdder permitsHeld = new LongAdder();

	@Override
	public long renewals() {
		return this.renewals.sum();
	}

	@Override
	public long permitsLeased() {
		return this.leased.sum();
	}

	@Override
	public long permitsReturned() {
		return this.returned.sum();
	}

	@Override
	public long permitsExpired() {
		return this.expired.sum();
	}

	@Override
	public long leaseHits() {
		return this.local.sum();
	}

	@Override
	public long waitedForRenewal() {
		return this.waited.sum();
	}

	@Override
	public long decidedExactly() {
		return this.exact.sum();
	}

	@Override
	public long permitsAdmittedExactly() {
		return this.exactAdmitted.sum();
	}

	@Override
	public long leasesHeld() {
		return this.leasesHeld.sum();
	}

	@Override
	public long permitsHeld() {
		return this.permitsHeld.sum();
	}

	@Override
	public String toString() {
		return "renewals=" + renewals() + ", leased=" + permitsLeased() + ", returned=" + permitsReturned()
				+ ", expired=" + permitsExpired() + ", hits=" + leaseHits() + ", waited=" + waitedForRenewal() + ", exact=" + decidedExactly() + ", held=" + permitsHeld();
	}

}
