package io.github.ratelimit.core.lease;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LeaseGrant;
import org.jspecify.annotations.Nullable;

/**
 * One key's leases in hand, the requests waiting for its renewal and its recent rate; every method is called holding
 * the lease's monitor, for a few field updates and never across I/O.
 */
final class Lease {

	/**
	 * Granted permits not yet handed out, oldest first. Their expiries need not be in that order (a fixed window's
	 * parcel ends with its window as measured from when its call was sent, and round trips vary), so a later parcel
	 * may outlive its own computed end while an earlier one holds it: safe, because a later grant's window never ends
	 * before an earlier grant's, and the earlier parcel expires no later than that.
	 */
	private final ArrayDeque<Parcel> parcels = new ArrayDeque<>(2);

	/** Requests waiting for the renewal in flight, in arrival order. */
	final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

	private final LeaseCounters counters;

	private long held;

	/** Whether a renewal call is in flight. */
	boolean renewing;

	/** Whether the lease left the cache (evicted, expired, reset or closed): it takes no more permits. */
	boolean retired;

	/** Whether a retired lease's permits go back to the shared state (not after a reset). */
	boolean giveBack;

	/** Permits asked for since the last renewal started. */
	private long demand;

	private long lastRenewalNanos;

	private boolean renewedBefore;

	/** The key's smoothed rate, permits per nanosecond; 0 until measured. */
	private double rate;

	/** The smoothed round trip of the key's renewals, nanoseconds; 0 until measured. */
	private long roundTripNanos;

	/** Whether the last renewal was refused: none starts ahead of need again until a grant comes. */
	private boolean aheadRefused;

	Lease(LeaseCounters counters) {
		this.counters = counters;
	}

	/**
	 * Counts a request's permits into the key's rate.
	 */
	void demand(long permits) {
		this.demand += permits;
	}

	/**
	 * Removes the parcels that expired by {@code now}, oldest first, stopping at the first that has not.
	 * @return the removed parcels, or {@code null} when none expired
	 */
	@Nullable List<Parcel> dropExpired(long now) {
		List<Parcel> expired = null;
		Parcel first;
		while ((first = this.parcels.peekFirst()) != null && now - first.expiresAtNanos >= 0) {
			if (expired == null) {
				expired = new ArrayList<>(2);
			}
			expired.add(remove());
		}
		return expired;
	}

	/**
	 * Removes every parcel.
	 * @return the removed parcels
	 */
	List<Parcel> drain() {
		List<Parcel> drained = new ArrayList<>(this.parcels.size());
		while (!this.parcels.isEmpty()) {
			drained.add(remove());
		}
		return drained;
	}

	void add(Parcel parcel) {
		if (this.parcels.isEmpty()) {
			this.counters.leasesHeld.increment();
		}
		this.parcels.addLast(parcel);
		this.held += parcel.left;
		this.counters.permitsHeld.add(parcel.left);
	}

	private Parcel remove() {
		Parcel parcel = this.parcels.removeFirst();
		this.held -= parcel.left;
		this.counters.permitsHeld.add(-parcel.left);
		if (this.parcels.isEmpty()) {
			this.counters.leasesHeld.decrement();
		}
		return parcel;
	}

	/**
	 * Takes {@code permits} from the parcels in hand (none of them expired), oldest first.
	 * @return the allowed decision, or {@code null} when the parcels do not cover the request
	 */
	@Nullable Decision take(long permits, long now) {
		if (this.held < permits) {
			return null;
		}
		Parcel newest = this.parcels.getLast();
		long needed = permits;
		while (needed > 0) {
			Parcel oldest = this.parcels.getFirst();
			long taken = Math.min(needed, oldest.left);
			oldest.left -= taken;
			this.held -= taken;
			this.counters.permitsHeld.add(-taken);
			needed -= taken;
			if (oldest.left == 0) {
				remove();
			}
		}
		return newest.decision(this.held, now);
	}

	/**
	 * Starts a renewal: measures the key's rate over the time since the last one.
	 * @return the key's rate in permits per nanosecond, or 0 when not known yet
	 */
	double startRenewal(long now) {
		this.renewing = true;
		if (this.renewedBefore) {
			double sample = (double) this.demand / Math.max(1, now - this.lastRenewalNanos);
			this.rate = (this.rate == 0) ? sample : (this.rate + sample) / 2;
		}
		this.renewedBefore = true;
		this.lastRenewalNanos = now;
		this.demand = 0;
		return this.rate;
	}

	/**
	 * Counts a renewal's answer: its round trip, and whether it granted permits.
	 * @param roundTripNanos the time from sending the call to its answer
	 * @param granted whether permits were granted
	 */
	void renewed(long roundTripNanos, boolean granted) {
		long sample = Math.max(1, roundTripNanos);
		this.roundTripNanos = (this.roundTripNanos == 0) ? sample : (this.roundTripNanos + sample) / 2;
		this.aheadRefused = !granted;
	}

	/**
	 * Whether a renewal should start now, ahead of need: no renewal is in flight, the last one was not refused, the
	 * key's rate and its renewals' round trip are known, and the permits in hand would last less than two round trips
	 * at that rate (the low-water mark, at most {@code batch}), so that the next grant comes before they run out and no
	 * request waits for it.
	 * @param batch the most permits one lease takes, which bounds the low-water mark (so an instance holds at most two
	 * batches, whatever one slow round trip measured)
	 * @return whether to renew ahead
	 */
	boolean belowLowWater(long batch) {
		if (this.renewing || this.retired || this.aheadRefused || this.rate == 0 || this.roundTripNanos == 0) {
			return false;
		}
		return this.held <= Math.min(batch, Math.ceil(this.rate * this.roundTripNanos * 2));
	}

	/**
	 * Permits taken in one grant, with what the holder knows of them.
	 */
	static final class Parcel {

		final LeaseGrant grant;

		/** When the grant call was sent, by the lease's nano clock. */
		final long sentNanos;

		/** When the fixed window the permits came from ends at the earliest; far in the future for other algorithms. */
		final long windowEndNanos;

		final long expiresAtNanos;

		long left;

		Parcel(LeaseGrant grant, long sentNanos, long windowEndNanos, long expiresAtNanos) {
			this.grant = grant;
			this.sentNanos = sentNanos;
			this.windowEndNanos = windowEndNanos;
			this.expiresAtNanos = expiresAtNanos;
			this.left = grant.granted();
		}

		/**
		 * The decision of a request served from this grant: remaining is what this instance knows of (its permits in
		 * hand and what the shared state had left after the grant), waits are the grant's less the time since.
		 */
		Decision decision(long held, long now) {
			Decision granted = this.grant.decision();
			long elapsed = now - this.sentNanos;
			return new Decision(true, granted.limit(), held + granted.remaining(), Duration.ZERO,
					less(granted.resetAfter(), elapsed), less(granted.nextPermitAfter(), elapsed), true, List.of());
		}

		private static Duration less(Duration duration, long nanos) {
			Duration left = duration.minusNanos(nanos);
			return left.isNegative() ? Duration.ZERO : left;
		}

	}

	/**
	 * A request waiting for a renewal.
	 */
	static final class Waiter {

		final long permits;

		final CompletableFuture<Decision> future = new CompletableFuture<>();

		/** Renewals completed while this request waited. */
		int rounds;

		Waiter(long permits) {
			this.permits = permits;
		}

	}

}
