package io.github.ratelimit.core.lease;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LeaseGrant;
import org.jspecify.annotations.Nullable;

/**
 * One key's leases in hand, the requests waiting for its renewal and its recent rate.
 * <p>
 * A request the oldest parcel in hand covers takes its permits without a lock ({@link #tryTake}: a compare-and-set
 * on that parcel's count, so no permit is handed out twice and none after its parcel was disposed of, which sets the
 * count to zero). Everything else, a request spanning parcels, adding, expiring and draining parcels, renewals and
 * waiters, is done holding the lease's monitor, for a few field updates and never across I/O; it publishes the
 * parcel the lock-free path takes from.
 */
final class Lease {

	private static final Hand EMPTY = new Hand(null, null, 0);

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

	/** The most permits one lease takes, which bounds the low-water mark. */
	private final long batch;

	/** What the lock-free path reads: the oldest parcel, the newest, and the permits of all but the oldest. */
	private volatile Hand hand = EMPTY;

	/** Whether a renewal call is in flight. */
	volatile boolean renewing;

	/** Whether the lease left the cache (evicted, expired, reset or closed): it takes no more permits. */
	boolean retired;

	/** Whether a retired lease's permits go back to the shared state (not after a reset). */
	boolean giveBack;

	/** Permits granted to this lease so far. */
	private long granted;

	/** Permits of parcels removed before they were handed out (expired or drained). */
	private long disposed;

	/** Permits handed out up to the last renewal's start. */
	private long takenBefore;

	/** Permits of requests that waited for a renewal and were not served from a parcel (yet). */
	private long unserved;

	private long lastRenewalNanos;

	private boolean renewedBefore;

	/** The key's smoothed rate, permits per nanosecond; 0 until measured. */
	private double rate;

	/** The smoothed round trip of the key's renewals, nanoseconds; 0 until measured. */
	private long roundTripNanos;

	/** Whether the last renewal was refused: none starts ahead of need again until a grant comes. */
	private boolean aheadRefused;

	/** The permits in hand at or below which a renewal starts ahead of need; -1 when none does. */
	private volatile long lowWater = -1;

	Lease(LeaseCounters counters, long batch) {
		this.counters = counters;
		this.batch = batch;
	}

	/**
	 * Takes {@code permits} from the oldest parcel in hand without a lock.
	 * @return the allowed decision, or {@code null} when that parcel does not cover the request or has expired (the
	 * locked path then decides)
	 */
	@Nullable Decision tryTake(long permits, long now) {
		Hand hand = this.hand;
		Parcel oldest = hand.oldest;
		if (oldest == null || now - oldest.expiresAtNanos >= 0) {
			return null;
		}
		long left = oldest.take(permits);
		if (left < 0) {
			return null;
		}
		this.counters.permitsHeld.add(-permits);
		return hand.newest.decision(left + hand.rest, now);
	}

	/**
	 * Whether the permits in hand fell to the low-water mark while no renewal is in flight, read without a lock (the
	 * locked {@link #belowLowWater()} decides).
	 */
	boolean lowOnPermits() {
		long mark = this.lowWater;
		if (mark < 0 || this.renewing) {
			return false;
		}
		Hand hand = this.hand;
		return hand.oldest == null || hand.oldest.left() + hand.rest <= mark;
	}

	/**
	 * Counts a request that waits for a renewal, or is decided exactly, into the key's rate.
	 */
	void waiting(long permits) {
		this.unserved += permits;
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
		if (expired != null) {
			publish();
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
		publish();
		return drained;
	}

	void add(Parcel parcel) {
		if (this.parcels.isEmpty()) {
			this.counters.leasesHeld.increment();
		}
		this.parcels.addLast(parcel);
		this.granted += parcel.left();
		this.counters.permitsHeld.add(parcel.left());
		publish();
	}

	/**
	 * Removes the oldest parcel, claiming the permits left in it (none can be taken from it after).
	 */
	private Parcel remove() {
		Parcel parcel = this.parcels.removeFirst();
		long left = parcel.claim();
		this.disposed += left;
		this.counters.permitsHeld.add(-left);
		if (this.parcels.isEmpty()) {
			this.counters.leasesHeld.decrement();
		}
		return parcel;
	}

	/**
	 * Publishes the parcels for the lock-free path, after they changed.
	 */
	private void publish() {
		Parcel oldest = this.parcels.peekFirst();
		if (oldest == null) {
			this.hand = EMPTY;
			return;
		}
		long rest = 0;
		for (Parcel parcel : this.parcels) {
			if (parcel != oldest) {
				rest += parcel.left();
			}
		}
		this.hand = new Hand(oldest, this.parcels.getLast(), rest);
	}

	/**
	 * The permits in hand.
	 */
	private long held() {
		Hand hand = this.hand;
		return (hand.oldest != null) ? hand.oldest.left() + hand.rest : 0;
	}

	/**
	 * Takes {@code permits} from the parcels in hand (none of them expired), oldest first, while requests may take from
	 * the oldest without the lock.
	 * @return the allowed decision, or {@code null} when the parcels do not cover the request
	 */
	@Nullable Decision take(long permits, long now) {
		Parcel oldest = this.parcels.peekFirst();
		if (oldest == null) {
			return null;
		}
		long fromOldest = oldest.takeUpTo(permits);
		long needed = permits - fromOldest;
		if (needed > 0) {
			if (this.hand.rest < needed) {
				oldest.put(fromOldest);
				return null;
			}
			for (Parcel parcel : this.parcels) {
				if (needed == 0) {
					break;
				}
				if (parcel != oldest) {
					needed -= parcel.takeUpTo(needed);
				}
			}
		}
		this.counters.permitsHeld.add(-permits);
		Parcel newest = this.parcels.getLast();
		boolean emptied = false;
		while (!this.parcels.isEmpty() && this.parcels.getFirst().left() == 0) {
			remove();
			emptied = true;
		}
		if (emptied || fromOldest < permits) {
			publish();
		}
		return newest.decision(held(), now);
	}

	/**
	 * Counts a waiting request served from a parcel: its permits are counted as taken.
	 */
	void served(long permits) {
		this.unserved -= permits;
	}

	/**
	 * Starts a renewal: measures the key's rate ({@link #measure}).
	 * @return the key's rate in permits per nanosecond, or 0 when not known yet
	 */
	double startRenewal(long now) {
		this.renewing = true;
		return measure(now);
	}

	/**
	 * Measures the key's rate over the time since the last measure (the permits handed out since, and those of
	 * requests that waited or were decided exactly): at each renewal, and at each decision made exactly because a
	 * lease would not pay.
	 * @return the key's rate in permits per nanosecond, or 0 when not known yet
	 */
	double measure(long now) {
		long taken = this.granted - this.disposed - held();
		if (this.renewedBefore) {
			long demand = Math.max(0, taken - this.takenBefore + this.unserved);
			double sample = (double) demand / Math.max(1, now - this.lastRenewalNanos);
			this.rate = (this.rate == 0) ? sample : (this.rate + sample) / 2;
		}
		this.renewedBefore = true;
		this.lastRenewalNanos = now;
		this.takenBefore = taken;
		this.unserved = 0;
		return this.rate;
	}

	/**
	 * The key's smoothed rate, permits per nanosecond; 0 until measured.
	 */
	double rate() {
		return this.rate;
	}

	/**
	 * Ends a renewal (none is in flight after it), counting its answer: its round trip, and whether it granted permits.
	 * @param roundTripNanos the time from sending the call to its answer
	 * @param granted whether permits were granted
	 */
	void renewed(long roundTripNanos, boolean granted) {
		this.renewing = false;
		long sample = Math.max(1, roundTripNanos);
		this.roundTripNanos = (this.roundTripNanos == 0) ? sample : (this.roundTripNanos + sample) / 2;
		this.aheadRefused = !granted;
		this.lowWater = (this.aheadRefused || this.rate == 0)
				? -1 : (long) Math.min(this.batch, Math.ceil(this.rate * this.roundTripNanos * 2));
	}

	/**
	 * Whether a renewal should start now, ahead of need: no renewal is in flight, the last one was not refused, the
	 * key's rate and its renewals' round trip are known, and the permits in hand would last less than two round trips
	 * at that rate (the low-water mark, at most a batch, so that an instance holds at most two batches whatever one
	 * slow round trip measured), so that the next grant comes before they run out and no request waits for it.
	 * @return whether to renew ahead
	 */
	boolean belowLowWater() {
		long mark = this.lowWater;
		return !this.renewing && !this.retired && mark >= 0 && held() <= mark;
	}

	/**
	 * What requests read without the lock: the parcel they take from, the one whose grant describes their decision,
	 * and the permits of every parcel but the oldest.
	 */
	private record Hand(@Nullable Parcel oldest, @Nullable Parcel newest, long rest) {
	}

	/**
	 * Permits taken in one grant, with what the holder knows of them.
	 */
	static final class Parcel {

		private static final VarHandle LEFT;

		static {
			try {
				LEFT = MethodHandles.lookup().findVarHandle(Parcel.class, "left", long.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		final LeaseGrant grant;

		/** When the grant call was sent, by the lease's nano clock. */
		final long sentNanos;

		/** When the fixed window the permits came from ends at the earliest; far in the future for other algorithms. */
		final long windowEndNanos;

		final long expiresAtNanos;

		/** The permits not handed out yet; changed only by compare-and-set or an atomic add. */
		private volatile long left;

		/** The permits left when the parcel was removed from the lease, which its disposal gives back or expires. */
		long removedLeft;

		Parcel(LeaseGrant grant, long sentNanos, long windowEndNanos, long expiresAtNanos) {
			this.grant = grant;
			this.sentNanos = sentNanos;
			this.windowEndNanos = windowEndNanos;
			this.expiresAtNanos = expiresAtNanos;
			this.left = grant.granted();
		}

		long left() {
			return this.left;
		}

		/**
		 * Takes exactly {@code permits} when this parcel has them.
		 * @return the permits left after, or -1 when it does not have them
		 */
		long take(long permits) {
			long left = this.left;
			while (left >= permits) {
				long witness = (long) LEFT.compareAndExchange(this, left, left - permits);
				if (witness == left) {
					return left - permits;
				}
				left = witness;
			}
			return -1;
		}

		/**
		 * Takes as many of {@code permits} as this parcel has.
		 * @return the permits taken
		 */
		long takeUpTo(long permits) {
			long left = this.left;
			while (left > 0) {
				long taken = Math.min(left, permits);
				long witness = (long) LEFT.compareAndExchange(this, left, left - taken);
				if (witness == left) {
					return taken;
				}
				left = witness;
			}
			return 0;
		}

		void put(long permits) {
			if (permits > 0) {
				LEFT.getAndAdd(this, permits);
			}
		}

		/**
		 * Claims every permit left, so none can be taken after.
		 */
		long claim() {
			this.removedLeft = (long) LEFT.getAndSet(this, 0L);
			return this.removedLeft;
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
			// no new Duration for a wait already over (a token bucket with permits left has none to wait for)
			if (duration.isZero()) {
				return Duration.ZERO;
			}
			if (duration.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L) {
				return duration.minusNanos(nanos);
			}
			long left = duration.toNanos() - nanos;
			return (left <= 0) ? Duration.ZERO : Duration.ofNanos(left);
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
