package io.github.ratelimit.core.wait;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Callers waiting for permits, in one line per key (a policy's client, say), each served in arrival order: the one
 * place that waits for a permit, for {@link io.github.ratelimit.core.WaitingRateLimiter} and for the Spring
 * integration's decision chain.
 * <p>
 * Only the caller at the head of a line asks the backend; the others wait behind it without a call of their own, so
 * waiters never all wake and ask at once. Where the backend reserves (takes permits now that come due later, within
 * the caller's remaining wait: {@link Attempt#due}), an admitted head leaves the line at once and sleeps until its
 * permits are due while the next caller asks: one call per permit, and callers of every instance served in the order
 * they reserved. The head asks, and when refused sleeps exactly until the next permit as the
 * backend computed it (the refusal's retry-after), then asks again. When admitted it leaves the line, and the next
 * caller asks at once (the permits the backend has left go to the callers in line, in order, one call each). A caller
 * whose next permit would come after its maximum wait ends at once with the refusal; one whose maximum wait passes in
 * line ends then with the latest refusal seen in its line, never later, except when no answer has come yet for its
 * line at all (a maximum wait shorter than one call): it then takes the first answer. An answer that ends a wait for
 * good (an admission, or a refusal no wait can change, such as a cost above the capacity or a fail-closed refusal)
 * ends it at once.
 * <p>
 * A permit granted to a caller that gave up while its call was in flight (its maximum wait passed, it was cancelled
 * or interrupted) goes to the next caller in its line that asks for as many permits; when there is none, it is
 * reported as {@linkplain Events#abandoned abandoned}, as are the reserved permits of a caller cancelled before they
 * came due. Delays hold no thread: a sleeping caller is a task of one shared
 * daemon timer thread ({@code ratelimit-wait-timer}) that continues on the caller's executor.
 * <p>
 * Thread-safe; a line exists only while it has callers.
 *
 * @param <T> the answer of one call to the backend
 */
public final class PermitQueues<T> {

	/** The shortest sleep between two calls of a caller, so that a refusal with no wait never spins. */
	static final long SHORTEST_SLEEP_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

	/**
	 * The timer of every sleep and maximum wait: one daemon thread that only hands tasks to the callers' executors,
	 * whose cancelled tasks leave its queue at once (a caller admitted at once leaves no task behind).
	 */
	private static final ScheduledThreadPoolExecutor TIMER = timer();

	private final ConcurrentMap<Object, Line> lines = new ConcurrentHashMap<>();

	private final Events<T> events;

	/**
	 * Creates the lines of callers.
	 * @param events told when callers start and end waiting, and of permits abandoned
	 */
	public PermitQueues(Events<T> events) {
		this.events = events;
	}

	/**
	 * Waits in the line of {@code key} until an attempt is admitted, ends for good, or the maximum wait passes.
	 * @param key the line: callers of equal keys are served in arrival order
	 * @param permits what the caller asks for (a permit given up by another caller goes only to one that asks for as
	 * many)
	 * @param maxWait the longest the caller waits, positive
	 * @param attempt one call to the backend, and how to read its answer
	 * @param continuation where the caller's calls after the first run, and where its answer completes when it was not
	 * complete at once (the caller's own thread for a blocking caller, an executor of the application's otherwise), or
	 * {@code null} for the waiting callers' one timer thread (for calls that do not block)
	 * @return the answer that ended the wait: an admission, the refusal of a caller that could not be admitted in
	 * time, or the refusal that no wait can change; completed exceptionally when an attempt fails. Cancelling it gives
	 * the caller's place up.
	 */
	public CompletableFuture<T> acquire(Object key, long permits, Duration maxWait, Attempt<T> attempt,
			@Nullable Executor continuation) {
		if (maxWait.isNegative() || maxWait.isZero()) {
			throw new IllegalArgumentException("A wait must be positive, not " + maxWait);
		}
		long now = System.nanoTime();
		long maxWaitNanos = saturatedNanos(maxWait);
		Waiter waiter = new Waiter(key, permits, attempt, (continuation != null) ? continuation : TIMER::execute, now,
				now + maxWaitNanos);
		boolean head;
		// told before it joins a line, where another thread may end it at once (a grant handed over)
		this.events.started(key);
		while (true) {
			Line line = this.lines.computeIfAbsent(key, (k) -> new Line());
			synchronized (line) {
				if (line.closed) {
					continue;
				}
				line.waiters.addLast(waiter);
				waiter.line = line;
				head = line.waiters.peekFirst() == waiter;
				break;
			}
		}
		// a result completed by anyone but this class (cancelled, a caller's orTimeout, a refused hand-over) gives the
		// caller's place up; once the wait has ended this does nothing
		waiter.result.whenComplete((value, error) -> cancelled(waiter));
		Future<?> deadline = TIMER.schedule(() -> hand(waiter, () -> expire(waiter)), maxWaitNanos,
				TimeUnit.NANOSECONDS);
		synchronized (waiter.line) {
			waiter.deadlineTask = deadline;
			if (waiter.ended) {
				deadline.cancel(false);
			}
		}
		if (head) {
			call(waiter);
		}
		return waiter.result;
	}

	/**
	 * The callers waiting now, in every line.
	 * @return how many
	 */
	public int waiting() {
		int waiting = 0;
		for (Line line : this.lines.values()) {
			synchronized (line) {
				waiting += line.waiters.size();
			}
		}
		return waiting;
	}

	private void call(Waiter waiter) {
		synchronized (waiter.line) {
			if (waiter.ended || waiter.calling || waiter.reserved) {
				return;
			}
			waiter.calling = true;
		}
		CompletionStage<T> answer;
		try {
			answer = waiter.attempt.call(Duration.ofNanos(Math.max(0, waiter.deadline - System.nanoTime())));
		}
		catch (Throwable ex) {
			answered(waiter, null, ex);
			return;
		}
		answer.whenComplete((value, error) -> answered(waiter, value, error));
	}

	private void answered(Waiter waiter, @Nullable T value, @Nullable Throwable error) {
		Throwable failure = unwrap(error);
		Line line = waiter.line;
		List<Runnable> after = new ArrayList<>(2);
		synchronized (line) {
			waiter.calling = false;
			boolean admitted = failure == null && waiter.attempt.admitted(value);
			boolean woke = waiter.woke;
			waiter.woke = false;
			if (admitted) {
				line.lostRaces = 0;
			}
			if (waiter.ended) {
				// gave up while its call was in flight: a permit granted goes to the next caller that asks as much
				if (admitted) {
					Waiter next = nextAsking(line, waiter, saturatedNanos(waiter.attempt.due(value)));
					if (next != null && isPositive(waiter.attempt.due(value))) {
						// a reservation handed over is due when it was due
						reserved(line, next, value, after);
					}
					else if (next != null) {
						line.waiters.remove(next);
						end(line, next, Ending.ADMITTED, after);
						after.add(() -> complete(next, value));
					}
					else {
						after.add(() -> abandoned(waiter, value));
					}
				}
				leave(line, waiter, after, admitted ? waiter.attempt.emptied(value) : null);
			}
			else if (failure != null) {
				end(line, waiter, Ending.FAILED, after);
				after.add(() -> waiter.result.completeExceptionally(failure));
				leave(line, waiter, after, null);
			}
			else if (admitted && isPositive(waiter.attempt.due(value))) {
				reserved(line, waiter, value, after);
			}
			else {
				Duration retryAfter = admitted ? null : waiter.attempt.retryAfter(value);
				if (retryAfter == null) {
					end(line, waiter, admitted ? Ending.ADMITTED : Ending.REFUSED, after);
					after.add(() -> complete(waiter, value));
					leave(line, waiter, after, admitted ? waiter.attempt.emptied(value) : null);
				}
				else {
					waiter.lastRefusal = value;
					line.lastRefusal = value;
					endExpired(line, waiter, value, after);
					long sleep = Math.max(saturatedNanos(retryAfter), SHORTEST_SLEEP_NANOS);
					long now = System.nanoTime();
					if (waiter.expired || now + sleep - waiter.deadline > 0) {
						end(line, waiter, Ending.GAVE_UP, after);
						after.add(() -> complete(waiter, value));
						leave(line, waiter, after, null);
					}
					else {
						Duration spacing = waiter.attempt.spacing(value);
						if (woke && retryAfter.compareTo(spacing.dividedBy(2)) >= 0) {
							// refused when its permit was due, the next one a spacing away: another instance took it
							// (a caller that woke a little early is told to wait a little, and is no lost race)
							line.lostRaces++;
						}
						long backOff = backOff(line, spacing);
						// a back-off never makes a caller give up whose permit is due within its maximum wait
						sleep = (now + sleep + backOff - waiter.deadline > 0) ? sleep : sleep + backOff;
						waiter.sleepTask = TIMER.schedule(() -> wake(waiter), sleep, TimeUnit.NANOSECONDS);
					}
				}
			}
		}
		after.forEach(Runnable::run);
	}

	/**
	 * Ends a caller whose maximum wait passed: with the latest refusal known in its line; a caller whose call is in
	 * flight keeps its place until the answer, which goes to the next caller if it admits.
	 */
	private void expire(Waiter waiter) {
		Line line = waiter.line;
		List<Runnable> after = new ArrayList<>(2);
		synchronized (line) {
			if (waiter.ended || waiter.reserved) {
				return;
			}
			T known = (waiter.lastRefusal != null) ? waiter.lastRefusal : line.lastRefusal;
			if (known == null) {
				// no answer yet in its line: the first one ends it
				waiter.expired = true;
			}
			else {
				end(line, waiter, Ending.GAVE_UP, after);
				after.add(() -> complete(waiter, known));
				if (!waiter.calling) {
					leave(line, waiter, after, null);
				}
			}
		}
		after.forEach(Runnable::run);
	}

	private void cancelled(Waiter waiter) {
		Line line = waiter.line;
		List<Runnable> after = new ArrayList<>(2);
		synchronized (line) {
			if (waiter.ended) {
				return;
			}
			end(line, waiter, Ending.CANCELLED, after);
			if (waiter.reserved) {
				// cancelled while its reserved permits came due: they are nobody's
				T reservation = waiter.reservation;
				after.add(() -> abandoned(waiter, reservation));
			}
			else if (!waiter.calling) {
				leave(line, waiter, after, null);
			}
		}
		after.forEach(Runnable::run);
	}

	/**
	 * A caller admitted by a reservation: the permits are its own, due later; it leaves its line, so that the caller
	 * then at the head asks at once, and sleeps until they are due (counted from now, after the backend decided).
	 */
	private void reserved(Line line, Waiter waiter, T reservation, List<Runnable> after) {
		waiter.reserved = true;
		waiter.reservation = reservation;
		cancel(waiter.deadlineTask);
		// a caller handed a reservation may have been sleeping until its own next call
		cancel(waiter.sleepTask);
		waiter.sleepTask = TIMER.schedule(() -> fulfil(waiter, reservation),
				saturatedNanos(waiter.attempt.due(reservation)), TimeUnit.NANOSECONDS);
		leave(line, waiter, after, null);
	}

	/**
	 * Ends the wait of a caller whose reserved permits are due, on its executor.
	 */
	private void fulfil(Waiter waiter, T reservation) {
		List<Runnable> after = new ArrayList<>(2);
		synchronized (waiter.line) {
			if (waiter.ended) {
				return;
			}
			end(waiter.line, waiter, Ending.ADMITTED, after);
		}
		after.forEach(Runnable::run);
		hand(waiter, () -> complete(waiter, reservation));
	}

	/**
	 * Ends the callers of a line whose maximum wait passed before any answer came for it, with the first refusal.
	 */
	private void endExpired(Line line, Waiter answered, T refusal, List<Runnable> after) {
		for (Iterator<Waiter> it = line.waiters.iterator(); it.hasNext();) {
			Waiter other = it.next();
			if (other != answered && other.expired && !other.ended && !other.calling) {
				end(line, other, Ending.GAVE_UP, after);
				after.add(() -> complete(other, refusal));
				it.remove();
			}
		}
	}

	/**
	 * The caller in line that a grant of a caller gone can go to: the first that asks as many permits, is not asking
	 * itself, and can wait until the grant is due.
	 */
	private @Nullable Waiter nextAsking(Line line, Waiter gone, long dueNanos) {
		long now = System.nanoTime();
		for (Waiter other : line.waiters) {
			if (other != gone && !other.ended && !other.calling && other.permits == gone.permits
					&& other.deadline - now - dueNanos >= 0) {
				return other;
			}
		}
		return null;
	}

	private void end(Line line, Waiter waiter, Ending ending, List<Runnable> after) {
		waiter.ended = true;
		cancel(waiter.deadlineTask);
		cancel(waiter.sleepTask);
		long waited = System.nanoTime() - waiter.started;
		after.add(() -> this.events.ended(waiter.key, Duration.ofNanos(Math.max(0, waited)), ending));
	}

	/**
	 * Takes an ended caller out of its line; the caller now at the head asks next.
	 */
	private void leave(Line line, Waiter waiter, List<Runnable> after, @Nullable T emptied) {
		if (emptied != null) {
			line.lastRefusal = emptied;
		}
		boolean wasHead = line.waiters.peekFirst() == waiter;
		line.waiters.remove(waiter);
		if (line.waiters.isEmpty()) {
			line.closed = true;
			this.lines.remove(waiter.key, line);
			return;
		}
		Waiter head = line.waiters.peekFirst();
		if (wasHead && head != null && !head.calling && !head.ended) {
			// the next permit is due then for a caller asking as many; one asking more asks at once to learn its wait
			Duration untilNext = (emptied != null) ? waiter.attempt.retryAfter(emptied) : null;
			long delay = (untilNext != null && head.permits == waiter.permits) ? saturatedNanos(untilNext) : 0;
			if (delay > 0) {
				// the admission left no permit: the next caller asks when the next one is due, not at once
				head.sleepTask = TIMER.schedule(() -> wake(head), Math.min(delay, head.deadline - System.nanoTime()),
						TimeUnit.NANOSECONDS);
			}
			else {
				// through the timer's queue, so that a line of callers admitted at once never nests one call in another
				after.add(() -> TIMER.execute(() -> hand(head, () -> call(head))));
			}
		}
	}

	private void complete(Waiter waiter, @Nullable T value) {
		if (!waiter.result.complete(value) && value != null && waiter.attempt.admitted(value)) {
			// cancelled between its end and this completion: the permit is nobody's
			abandoned(waiter, value);
		}
	}

	/**
	 * A permit nobody will use: given back where the attempt can, and told.
	 */
	private void abandoned(Waiter waiter, T admission) {
		try {
			waiter.attempt.abandoned(admission);
		}
		finally {
			this.events.abandoned(waiter.key, admission);
		}
	}

	/**
	 * Wakes a sleeping caller to ask again, on its executor.
	 */
	private void wake(Waiter waiter) {
		hand(waiter, () -> {
			synchronized (waiter.line) {
				waiter.woke = true;
			}
			call(waiter);
		});
	}

	/**
	 * The extra sleep of a line whose callers were refused when their permit was due (another instance on the same
	 * key took it): a random number of permit spacings, up to twice as many after each such refusal in a row (at most
	 * 16), so that instances contending for one key stop asking all at once; the permits they leave are not lost (a
	 * bucket or window keeps them for the next caller), and a caller never sleeps past its maximum wait.
	 */
	private long backOff(Line line, Duration spacing) {
		if (line.lostRaces == 0 || spacing.isZero() || spacing.isNegative()) {
			return 0;
		}
		int slots = 1 << Math.min(line.lostRaces, 4);
		return saturatedNanos(spacing) * ThreadLocalRandom.current().nextInt(slots);
	}

	/**
	 * Hands a timer's task to the caller's executor; one that refuses it (shut down) ends the caller's wait with that
	 * failure rather than leaving it waiting.
	 */
	private void hand(Waiter waiter, Runnable task) {
		try {
			waiter.continuation.execute(task);
		}
		catch (RuntimeException ex) {
			waiter.result.completeExceptionally(ex);
		}
	}

	private static void cancel(@Nullable Future<?> task) {
		if (task != null) {
			task.cancel(false);
		}
	}

	private static ScheduledThreadPoolExecutor timer() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "ratelimit-wait-timer");
			thread.setDaemon(true);
			return thread;
		});
		timer.setRemoveOnCancelPolicy(true);
		return timer;
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return Math.min(duration.toNanos(), Long.MAX_VALUE / 4);
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 4;
		}
	}

	private static boolean isPositive(Duration duration) {
		return !duration.isZero() && !duration.isNegative();
	}

	private static @Nullable Throwable unwrap(@Nullable Throwable error) {
		return (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
	}

	/**
	 * One call to the backend for a waiting caller, and how to read its answer.
	 *
	 * @param <T> the answer
	 */
	public interface Attempt<T> {

		/**
		 * Asks the backend once.
		 * @param remaining what is left of the caller's maximum wait: how long it may wait for permits reserved now
		 * @return the answer
		 */
		CompletionStage<T> call(Duration remaining);

		/**
		 * How long until an admission's permits are due: zero, or, for a reservation, the time the caller must still
		 * wait before using them (it leaves its line at once, so the next caller asks, and its wait ends then).
		 * @param admission an admission
		 * @return the time until due, zero by default
		 */
		default Duration due(T admission) {
			return Duration.ZERO;
		}

		/**
		 * Whether an answer admits the caller.
		 * @param answer the answer
		 * @return whether the permits were granted
		 */
		boolean admitted(T answer);

		/**
		 * How long until a refused caller could be admitted, as the backend computed it.
		 * @param refusal a refusal
		 * @return the wait, or {@code null} when no wait can change the answer (it ends the caller's wait at once)
		 */
		@Nullable Duration retryAfter(T refusal);

		/**
		 * The refusal the next caller would get right after an admission that left no permit: it waits for the next
		 * permit rather than asking at once, and a caller whose maximum wait passes meanwhile ends with it.
		 * @param admission an admission
		 * @return the refusal, or {@code null} when permits are left (the next caller asks at once)
		 */
		default @Nullable T emptied(T admission) {
			return null;
		}

		/**
		 * Told of an admission of this attempt that nobody will use (its caller gave up while its call was in flight
		 * and no caller in line asked as many, or it was cancelled before its reserved permits came due): give its
		 * permits back where the backend can. It must not block; by default it does nothing.
		 * @param admission the admission
		 */
		default void abandoned(T admission) {
		}

		/**
		 * The time between two permits of the limit that refused, for the back-off of callers refused when their
		 * permit was due.
		 * @param refusal a refusal
		 * @return the spacing, zero for no back-off
		 */
		default Duration spacing(T refusal) {
			return Duration.ZERO;
		}

	}

	/**
	 * How a caller's wait ended.
	 */
	public enum Ending {

		/** Admitted, at once or after waiting. */
		ADMITTED,

		/** Refused by an answer no wait can change. */
		REFUSED,

		/** Gave up: its next permit would come after its maximum wait, or that wait passed. */
		GAVE_UP,

		/** Cancelled or interrupted by the caller. */
		CANCELLED,

		/** A call failed. */
		FAILED

	}

	/**
	 * Told of every caller's start and end, for metrics.
	 *
	 * @param <T> the answer
	 */
	public interface Events<T> {

		/**
		 * A caller joined a line.
		 * @param key the line
		 */
		default void started(Object key) {
		}

		/**
		 * A caller's wait ended.
		 * @param key the line
		 * @param waited how long it waited
		 * @param ending how
		 */
		default void ended(Object key, Duration waited, Ending ending) {
		}

		/**
		 * A permit was granted to a caller that had given up, and no caller in its line asked for as many.
		 * @param key the line
		 * @param admission the answer that granted it
		 */
		default void abandoned(Object key, T admission) {
		}

	}

	private final class Line {

		final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

		@Nullable T lastRefusal;

		/** Refusals in a row of callers that asked when their permit was due. */
		int lostRaces;

		boolean closed;

	}

	private final class Waiter {

		final Object key;

		final long permits;

		final Attempt<T> attempt;

		final Executor continuation;

		final long started;

		final long deadline;

		final CompletableFuture<T> result = new CompletableFuture<>();

		@SuppressWarnings("NullAway.Init")
		Line line;

		/** The caller's wait has ended: its result is (being) completed. */
		boolean ended;

		/** Its call is in flight. */
		boolean calling;

		/** Its maximum wait passed before any answer came for its line. */
		boolean expired;

		/** Its call was made when the permit it slept for was due. */
		boolean woke;

		/** Admitted by a reservation whose permits are not due yet: it has left its line, and sleeps until then. */
		boolean reserved;

		@Nullable T reservation;

		@Nullable T lastRefusal;

		/** The task that ends the wait at its maximum, cancelled when the wait ends. */
		@Nullable Future<?> deadlineTask;

		/** The task that wakes the caller from its sleep, cancelled when the wait ends. */
		@Nullable Future<?> sleepTask;

		Waiter(Object key, long permits, Attempt<T> attempt, Executor continuation, long started, long deadline) {
			this.key = key;
			this.permits = permits;
			this.attempt = attempt;
			this.continuation = continuation;
			this.started = started;
			this.deadline = deadline;
		}

	}

}
