package io.github.ratelimit.benchmarks;

/**
 * Why a target can be missed on the machine the run measured, and what would close it: the report prints the note of
 * every target the run missed.
 */
final class MissNotes {

	static final String CONTEXT = """
			Context for every number above: the run shares two CPUs between Redis (single-threaded), the client JVM, \
			redis-benchmark or wrk and, for HTTP, the sample app, on a machine where other builds run too (see the \
			load average). Redis' own thread is the bottleneck of every decision benchmark, so CPU that a client uses \
			is CPU Redis does not get; production has the application and Redis on different cores or machines.

			How far to trust one run: on this machine, repeated runs moved single cells by up to 2x (gcra at 64 \
			threads made 15,012 decisions/s in a trial run at a load of 9 to 14, and half that in another), and the \
			HTTP p99 values (tens to hundreds of ms) are scheduling delays of a busy machine, far above the 1 ms the \
			target speaks of: a p99 target met or missed here says little. A shortfall smaller than that spread is \
			within noise. What would make the numbers firm: several runs (five or more, reporting the median) on a \
			quiet or dedicated machine, with Redis pinned to its own core.""";

	private MissNotes() {
	}

	/**
	 * The targets of the benchmarks issue.
	 */
	enum Target {

		CEILING("**Ours vs redis-benchmark.** Why: redis-benchmark is one small C event loop; our client is a JVM with "
				+ "64 threads, Reactor and Lettuce's event loop, and on two shared CPUs it takes CPU away from Redis, "
				+ "which is the bottleneck. Lettuce does pipeline the 64 threads' commands on one connection, which is "
				+ "why ours matches or beats the ceiling on other runs. What would close it: Redis on a core of its "
				+ "own (`taskset`) or another machine, as in production; less client CPU per decision (see the HTTP note)."),

		BUCKET4J("**Ours vs Bucket4j (1.5x).** Bucket4j's Lettuce proxy manager is compare-and-swap: a `GET`, then "
				+ "an `EVAL` that sends its whole script text every call; ours is one `EVALSHA`. Where round trips "
				+ "dominate (an idle machine, a network between app and Redis) that is about half the work per "
				+ "decision. Why it is missed here: with client and Redis sharing two CPUs, both are limited by CPU "
				+ "rather than round trips, and our script does more Lua work per call (exact integer refill with "
				+ "`gcd`, `TIME`, multi-limit bookkeeping; see the usec_per_call table) than Bucket4j's small scripts. "
				+ "What would close it: a run where Redis has its own core; a cheaper script (pass the per-limit "
				+ "rate and unit computed once in Java instead of `gcd` on every call)."),

		HTTP_THROUGHPUT("**HTTP throughput (0.8x).** Each limited request pays one Redis decision on the request "
				+ "thread: client CPU (Lettuce encode and decode, Reactor's `Mono.block` hand-off between the Tomcat "
				+ "thread and Lettuce's event loop, the Micrometer timer, the headers) plus the script's time in Redis, "
				+ "all on the same two CPUs as Tomcat and wrk. `/api/unlimited` does no work at all, so this is the "
				+ "largest relative overhead any endpoint can show; the one-thread column of the decisions table "
				+ "(ours at 1 thread against redis-benchmark at 1 connection) shows the same per-call client cost. "
				+ "What would close it: wrk and Redis on other cores than the app (as in production); a cheaper "
				+ "blocking path to Redis (Lettuce's synchronous API with its own command timeout instead of "
				+ "`Mono.block`); measuring an endpoint that does real work."),

		HTTP_LATENCY("**HTTP p99 (+1 ms).** The added p99 is the Redis round trip plus scheduling delay: with wrk, "
				+ "Tomcat's threads, Lettuce's event loop and Redis competing for two busy CPUs, a thread waiting for "
				+ "Redis' answer often waits for a CPU too, and that wait lands in the tail. What would close it: the "
				+ "same as for HTTP throughput; on an idle machine with Redis on its own core the round trip is tens "
				+ "of microseconds."),

		DENY_CACHE("**Deny cache (0.01 calls per denial).** The cache answers a client's repeated requests only "
				+ "after Redis has denied it once, so the workload's ratio is at least one call per client over the "
				+ "denials per client. What would close it: more denied requests per client (real abusive clients "
				+ "send many)."),

		MEMORY("**Memory per key.** `MEMORY USAGE` counts the key's name (prefix, policy, fingerprint, client, "
				+ "limit index) and Redis' object overhead, not only the value. What would close it: a shorter "
				+ "`ratelimit.key-prefix`, shorter policy names, or a shorter fingerprint.");

		private final String note;

		Target(String note) {
			this.note = note;
		}

		String note() {
			return this.note;
		}

	}

}
