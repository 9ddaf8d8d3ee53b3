package io.github.ratelimit.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.test.web.servlet.client.ExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acceptance check of "hold under failure and attack": three instances of the sample (application contexts of
 * their own, with the production decision timeout of 100 ms and failure mode {@code open}) on one Redis, behind a
 * trusted proxy ({@code server.forward-headers-strategy=native}: every request comes from the loopback address, with
 * the client in {@code X-Forwarded-For}), one client's requests spread over them round-robin by three threads. A
 * 200 ms Redis stall, a restart of Redis with no data and a flood of forged forwarding headers leave the {@code hello}
 * limit exact afterwards, and no instance decides without Redis for longer than allowed after the stall.
 * <p>
 * Redis is an embedded server of the test's own, so that it can be stalled ({@code DEBUG SLEEP}) and restarted. The
 * {@code hello} policy keeps the sample's path and {@code ip} key, with its limit raised to a period ({@code 5/1h})
 * long enough that no permit is refilled while the test counts. A response with rate limit headers was decided by
 * Redis (or by the deny cache of Redis' refusals); one without them was let through by the failure mode. Counts are
 * asserted exactly on bursts that Redis decided entirely: a decision that outlasts the 100 ms budget on a busy
 * machine fails open, so such a burst is tried again with a fresh client (and its Redis admissions must still be
 * within the limit).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ThreeInstancesUnderTroubleTests {

	private static final int CAPACITY = 5;

	/**
	 * The longest an instance may go on deciding without Redis once a 200 ms stall is over, at best of
	 * {@value #STALLS} stalls: well under a breaker interval of a second, which one failed call must no longer open
	 * (an instance whose breaker it opens needs 0.8 s or more after every stall that hits it), and well above the
	 * tens of milliseconds an instance otherwise takes to decide with Redis again. The best of several stalls keeps a
	 * busy machine, which can push one stall's next few calls past the 100 ms timeout, from failing the test.
	 */
	private static final Duration LONGEST_WITHOUT_REDIS_AFTER_STALL = Duration.ofMillis(500);

	private static final int STALLS = 3;

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final String KEY_PREFIX = "three-instances-" + UUID.randomUUID();

	private static final AtomicInteger clients = new AtomicInteger();

	private static final List<RunningSample> instances = new ArrayList<>();

	private static EmbeddedRedis redis;

	private static RedisClient admin;

	@BeforeAll
	static void startRedisAndThreeInstances() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		admin = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
		for (int i = 0; i < 3; i++) {
			instances.add(RunningSample.start("spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redis.port(), "ratelimit.timeout=100ms", "ratelimit.failure-mode=open",
					"server.forward-headers-strategy=native", "ratelimit.key-prefix=" + KEY_PREFIX,
					"ratelimit.policies.hello.limits=" + CAPACITY + "/1h"));
		}
	}

	@AfterAll
	static void stopAll() {
		instances.forEach(RunningSample::close);
		if (admin != null) {
			admin.shutdown();
		}
		if (redis != null) {
			redis.stop();
		}
	}

	@Test
	@Order(1)
	void stallOf200MillisecondsLeavesNoInstanceWithoutRedisAndTheLimitExact() throws Exception {
		Map<Integer, Duration> withoutRedis = new TreeMap<>();
		try (Traffic traffic = Traffic.start()) {
			traffic.await("every instance decides with Redis", () -> traffic.decidedByEveryInstanceAfter(0));
			for (int i = 0; i < STALLS; i++) {
				stallUntilItHitsTraffic(traffic).withoutRedisAfterItsEnd()
					.forEach((instance, time) -> withoutRedis.merge(instance, time,
							(one, other) -> (one.compareTo(other) <= 0) ? one : other));
			}
		}
		assertThat(withoutRedis)
			.as("time from a stall's end to each instance's first Redis decision, at best of %d stalls", STALLS)
			.hasSize(3)
			.allSatisfy((instance, time) -> assertThat(time).isLessThan(LONGEST_WITHOUT_REDIS_AFTER_STALL));
		assertExactForAFreshClient("after the stall", false);
	}

	@Test
	@Order(2)
	void floodOfForgedForwardingHeadersCountsOnlyTheRealClient() throws Exception {
		long keysBefore = helloKeys();
		int clientsTried = assertExactForAFreshClient("under forged X-Forwarded-For", true);
		// 90 forged addresses a burst: had any been taken for the client, it would have a key of its own
		assertThat(helloKeys() - keysBefore).as("Redis keys of hello: at most one per real client tried")
			.isBetween(1L, (long) clientsTried);
	}

	@Test
	@Order(3)
	void restartOfRedisWithNoDataLeavesTheLimitExactOnEveryInstance() throws Exception {
		redis.stop();
		await("Redis on " + redis.port() + " has stopped", () -> !TestRedis.listening(redis.port()));
		List<Answer> whileDown = burst(nextClient(), 9, false);
		assertThat(whileDown).as("answers while Redis is down")
			.allSatisfy((answer) -> assertThat(answer.failedOpen()).as("%s", answer).isTrue());
		redis.restart();
		assertExactForAFreshClient("after Redis restarted empty", false);
	}

	/**
	 * Sends bursts of 3 * {@value #CAPACITY} requests (90 when forging), each burst for a fresh client, until Redis
	 * decided a whole burst: it admits exactly the capacity across the three instances. Every burst, even one
	 * partly let through by the failure mode, gets no more than the capacity admitted by Redis.
	 * @return the number of clients tried
	 */
	private static int assertExactForAFreshClient(String when, boolean forged) throws Exception {
		long deadline = System.nanoTime() + DEADLINE.toNanos();
		List<Tally> tried = new ArrayList<>();
		while (System.nanoTime() - deadline < 0) {
			List<Answer> answers = burst(nextClient(), forged ? 90 : 3 * CAPACITY, forged);
			Tally tally = Tally.of(answers);
			tried.add(tally);
			assertThat(answers).as("answers %s", when)
				.allSatisfy((answer) -> assertThat(answer.status()).as("%s", answer).isIn(200, 429));
			assertThat(tally.admitted()).as("Redis admissions of one client %s: %s", when, tally)
				.isLessThanOrEqualTo(CAPACITY);
			if (tally.failedOpen() == 0) {
				assertThat(tally.admitted()).as("admitted %s: %s", when, tally).isEqualTo(CAPACITY);
				assertThat(tally.denied()).as("denied %s: %s", when, tally).isEqualTo(answers.size() - CAPACITY);
				return tried.size();
			}
			Thread.sleep(200);
		}
		throw new AssertionError("No burst was decided by Redis entirely " + when + " within " + DEADLINE.toSeconds()
				+ " s: " + tried);
	}

	/**
	 * Stalls Redis for 200 ms ({@code DEBUG SLEEP 0.2} on a connection of its own) while the traffic flows, and
	 * waits until every instance has made a Redis decision on a request sent after the stall. Should an instance
	 * happen to have no call waiting on Redis during the stall (none of its calls failed), it stalls again, 100 ms
	 * longer each time: on a busy machine a decision's timer that fires late gives the reply the call's whole timeout
	 * again (as after a GC pause), so a short stall may fail no call.
	 */
	private static Stall stallUntilItHitsTraffic(Traffic traffic) {
		Stall stall = null;
		for (int attempt = 0; attempt < 5 && (stall == null || !stall.failedOnEveryInstance()); attempt++) {
			long start;
			long end;
			try (StatefulRedisConnection<String, String> connection = admin.connect()) {
				start = System.nanoTime();
				connection.sync().dispatch(CommandType.DEBUG, new StatusOutput<>(StringCodec.UTF8),
						new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add(stallSeconds(attempt)));
				end = System.nanoTime();
			}
			traffic.await("every instance decides with Redis after the stall",
					() -> traffic.decidedByEveryInstanceAfter(end));
			stall = new Stall(start, end, traffic.answers());
		}
		assertThat(stall.failedOnEveryInstance()).as("the stall made a call of every instance fail (outlast the timeout)")
			.isTrue();
		return stall;
	}

	private static String stallSeconds(int attempt) {
		return Double.toString((200 + 100 * attempt) / 1000.0);
	}

	/**
	 * {@code requests} requests of one client, sent by three threads at once, each going round the instances (so each
	 * instance gets a third); when forging, each claims in {@code X-Forwarded-For} and {@code Forwarded} to come from
	 * a new, made-up address, to which the trusted proxy appended the real one.
	 */
	private static List<Answer> burst(String client, int requests, boolean forged) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(3);
		try {
			List<Future<List<Answer>>> sent = new ArrayList<>();
			for (int thread = 0; thread < 3; thread++) {
				int first = thread;
				sent.add(threads.submit(() -> {
					List<Answer> answers = new ArrayList<>();
					for (int i = 0; i < requests / 3; i++) {
						answers.add(send((first + i) % 3, client, forged));
					}
					return answers;
				}));
			}
			List<Answer> answers = new ArrayList<>();
			for (Future<List<Answer>> result : sent) {
				answers.addAll(result.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
			}
			return answers;
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static Answer send(int instance, String client, boolean forged) {
		String forwardedFor = client;
		List<String> headers = new ArrayList<>();
		if (forged) {
			String madeUp = forgedAddress();
			forwardedFor = madeUp + ", " + client;
			headers.add("Forwarded");
			headers.add("for=" + madeUp);
		}
		long sent = System.nanoTime();
		ExchangeResult result = instances.get(instance).client().get().uri("/api/hello").headers((http) -> {
			for (int i = 0; i < headers.size(); i += 2) {
				http.add(headers.get(i), headers.get(i + 1));
			}
		}).header("X-Forwarded-For", forwardedFor).exchange().returnResult();
		return new Answer(instance, sent, result.getStatus().value(),
				result.getResponseHeaders().getFirst("RateLimit-Policy") != null);
	}

	/**
	 * A client address no other request of the test uses, outside every range the proxy trusts: consecutive ones
	 * differ in their first 16 bits, so that no grouping of IPv4 addresses by prefix could join them.
	 */
	private static String nextClient() {
		int n = clients.incrementAndGet();
		return "11." + (n & 0xff) + "." + ((n >> 8) & 0xff) + "." + (1 + ((n >> 16) % 250));
	}

	private static String forgedAddress() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		return "12." + random.nextInt(256) + "." + random.nextInt(256) + "." + (1 + random.nextInt(250));
	}

	private static long helloKeys() {
		try (StatefulRedisConnection<String, String> connection = admin.connect()) {
			return connection.sync().keys(KEY_PREFIX + ":hello:*").size();
		}
	}

	private static void await(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + DEADLINE.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Gave up after " + DEADLINE.toSeconds() + " s waiting until " + what);
			}
			Thread.sleep(20);
		}
	}

	/**
	 * One response.
	 * @param instance which instance answered
	 * @param sentNanos when the request was sent ({@link System#nanoTime()})
	 * @param status its status
	 * @param decided whether it carried rate limit headers: decided by Redis, not by the failure mode
	 */
	private record Answer(int instance, long sentNanos, int status, boolean decided) {

		boolean failedOpen() {
			return this.status == 200 && !this.decided;
		}

	}

	/**
	 * What a burst came to: admitted and refused by Redis, let through by the failure mode.
	 */
	private record Tally(long admitted, long denied, long failedOpen) {

		static Tally of(List<Answer> answers) {
			return new Tally(answers.stream().filter((answer) -> answer.decided() && answer.status() == 200).count(),
					answers.stream().filter((answer) -> answer.decided() && answer.status() == 429).count(),
					answers.stream().filter(Answer::failedOpen).count());
		}

	}

	/**
	 * A stall of Redis, from just before {@code DEBUG SLEEP} was sent until its reply, and the traffic's answers.
	 */
	private record Stall(long startNanos, long endNanos, List<Answer> answers) {

		/**
		 * Whether every instance let a request that could have met the stall (sent at most a timeout before it) through
		 * by the failure mode.
		 */
		boolean failedOnEveryInstance() {
			long timeout = TimeUnit.MILLISECONDS.toNanos(100);
			return this.answers.stream()
				.filter((answer) -> answer.failedOpen() && answer.sentNanos() - (this.startNanos - timeout) >= 0
						&& answer.sentNanos() - this.endNanos <= 0)
				.map(Answer::instance)
				.distinct()
				.count() == 3;
		}

		/** For each instance, the time from the stall's end until the sending of its first request Redis decided. */
		Map<Integer, Duration> withoutRedisAfterItsEnd() {
			return this.answers.stream()
				.filter((answer) -> answer.decided() && answer.sentNanos() - this.endNanos > 0)
				.collect(Collectors.toMap(Answer::instance,
						(answer) -> Duration.ofNanos(answer.sentNanos() - this.endNanos),
						(one, other) -> (one.compareTo(other) <= 0) ? one : other));
		}

	}

	/**
	 * Requests of ever new clients, each to {@code /api/hello} with its own address, sent by one thread per instance
	 * until closed, so that every instance always has a call under way (one a stall cannot miss) and its answers
	 * after a stall follow each other closely; every answer is kept.
	 */
	private static final class Traffic implements AutoCloseable {

		private final ExecutorService threads = Executors.newFixedThreadPool(3);

		private final List<Future<?>> senders = new ArrayList<>();

		private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();

		private volatile boolean running = true;

		static Traffic start() {
			Traffic traffic = new Traffic();
			for (int thread = 0; thread < 3; thread++) {
				int instance = thread;
				traffic.senders.add(traffic.threads.submit(() -> {
					while (traffic.running) {
						traffic.answers.add(send(instance, nextClient(), false));
					}
				}));
			}
			return traffic;
		}

		List<Answer> answers() {
			return List.copyOf(this.answers);
		}

		boolean decidedByEveryInstanceAfter(long nanos) {
			return this.answers.stream()
				.filter((answer) -> answer.decided() && answer.sentNanos() - nanos > 0)
				.map(Answer::instance)
				.distinct()
				.count() == 3;
		}

		void await(String what, BooleanSupplier condition) {
			try {
				ThreeInstancesUnderTroubleTests.await(what, () -> {
					this.senders.stream().filter(Future::isDone).findFirst().ifPresent(Traffic::rethrow);
					return condition.getAsBoolean();
				});
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		private static void rethrow(Future<?> sender) {
			try {
				sender.get();
				throw new IllegalStateException("A traffic thread stopped");
			}
			catch (Exception ex) {
				throw new IllegalStateException("A traffic thread failed", ex);
			}
		}

		@Override
		public void close() throws Exception {
			this.running = false;
			this.threads.shutdown();
			assertThat(this.threads.awaitTermination(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
			for (Future<?> sender : this.senders) {
				sender.get();
			}
		}

	}

}
