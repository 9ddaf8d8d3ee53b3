package io.github.ratelimit.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

import com.sun.management.OperatingSystemMXBean;
import io.github.bucket4j.BlockingBucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.WaitingRateLimiter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.NettyHook;
import org.redisson.config.Config;

/**
 * The waiting cell: callers that wait for their permits, side by side: ours ({@link WaitingRateLimiter} over our Redis
 * backend), Redisson's {@code RRateLimiter.tryAcquire(permits, timeout)} and Bucket4j's blocking bucket, each with the
 * same rate on the same Redis. Each contender runs as several instances in this JVM, each with its own Redis client
 * and connections, whose threads together ask for far more than the shared rate, every one in a loop of "one permit,
 * waiting up to the maximum wait". After a warm-up (which also drains the full bucket or window a fresh key starts
 * with) it counts, over the measured interval, the permits each instance got, the commands every instance sent
 * ({@link SentCommands}), what Redis executed ({@code INFO commandstats}) and the CPU of this JVM and of Redis. Each
 * run measures every contender once, on a fresh key, in an order that changes from run to run; a contender's
 * instances are started before its measurement and closed after it.
 */
final class WaitingPermits {

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	/** The longest a caller's thread is given to finish its last wait once the interval is over, beyond its maximum. */
	private static final Duration STOP_GRACE = Duration.ofSeconds(10);

	private WaitingPermits() {
	}

	/**
	 * Measures every contender in every run.
	 * @param server the Redis server
	 * @param admin an admin connection to it
	 * @param shape instances, threads, rate, waits
	 * @param runs how many times every contender is measured
	 * @param pinning the CPUs whose busy share is recorded
	 * @param log progress
	 * @return every run
	 */
	static Result measure(OwnRedis server, RedisAdmin admin, Shape shape, int runs, CpuPinning pinning,
			Consumer<String> log) {
		List<Run> measured = new ArrayList<>();
		for (int run = 0; run < runs; run++) {
			List<Kind> order = new ArrayList<>(List.of(Kind.values()));
			Collections.rotate(order, -run);
			if (run % 2 == 1) {
				Collections.reverse(order);
			}
			for (Kind kind : order) {
				log.accept("waiting run " + (run + 1) + "/" + runs + ": " + kind.label() + ", " + shape.describe());
				measured.add(measure(server, admin, shape, kind, run, pinning));
			}
		}
		return new Result(shape, measured);
	}

	private static Run measure(OwnRedis server, RedisAdmin admin, Shape shape, Kind kind, int run,
			CpuPinning pinning) {
		List<Instance> instances = new ArrayList<>();
		try {
			for (int i = 0; i < shape.instances(); i++) {
				instances.add(kind.start(server, shape));
			}
			String key = "waiting-" + kind.name().toLowerCase(Locale.ROOT) + "-" + run;
			List<Waiter> waiters = new ArrayList<>();
			for (Instance instance : instances) {
				waiters.add(instance.waiter(key));
			}
			return load(kind, run, shape, waiters, instances, admin, pinning);
		}
		finally {
			instances.forEach(Instance::close);
		}
	}

	private static Run load(Kind kind, int run, Shape shape, List<Waiter> waiters, List<Instance> instances,
			RedisAdmin admin, CpuPinning pinning) {
		List<LongAdder> admitted = new ArrayList<>();
		LongAdder gaveUp = new LongAdder();
		LongAdder errors = new LongAdder();
		AtomicBoolean counting = new AtomicBoolean();
		AtomicBoolean stop = new AtomicBoolean();
		AtomicReference<Exception> firstError = new AtomicReference<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < waiters.size(); i++) {
			Waiter waiter = waiters.get(i);
			LongAdder mine = new LongAdder();
			admitted.add(mine);
			Runnable loop = () -> {
				while (!stop.get()) {
					try {
						boolean got = waiter.acquire();
						if (counting.get()) {
							(got ? mine : gaveUp).increment();
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
					catch (Exception ex) {
						if (stop.get()) {
							return;
						}
						errors.increment();
						if (firstError.compareAndSet(null, ex)) {
							System.err.println("[benchmarks] first error of " + kind.label() + ": " + ex);
						}
					}
				}
			};
			for (int t = 0; t < shape.threads(); t++) {
				Thread thread = new Thread(loop, "waiting-" + i + "-" + t);
				thread.setDaemon(true);
				threads.add(thread);
			}
		}
		threads.forEach(Thread::start);
		try {
			Thread.sleep(shape.warmUp().toMillis());
			RedisStats redisBefore = admin.stats();
			CpuUsage cpusBefore = CpuUsage.now();
			long sentBefore = sent(instances);
			long cpuBefore = OS.getProcessCpuTime();
			long start = System.nanoTime();
			counting.set(true);
			Thread.sleep(shape.measure().toMillis());
			counting.set(false);
			double seconds = (System.nanoTime() - start) / 1e9;
			long cpu = OS.getProcessCpuTime() - cpuBefore;
			long sent = sent(instances) - sentBefore;
			CpuUsage cpus = CpuUsage.now();
			RedisStats.Delta redis = admin.stats().since(redisBefore, seconds);
			return new Run(kind, run, shape.rate(), seconds, admitted.stream().map(LongAdder::sum).toList(),
					gaveUp.sum(), errors.sum(), sent, redis, cpu / 1e9, cpus.busySince(cpusBefore, pinning.clientCpu()),
					cpus.busySince(cpusBefore, pinning.redisCpu()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while measuring", ex);
		}
		finally {
			stop.set(true);
			long deadline = System.nanoTime() + shape.maxWait().plus(STOP_GRACE).toNanos();
			for (Thread thread : threads) {
				try {
					thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				if (thread.isAlive()) {
					thread.interrupt();
				}
			}
		}
	}

	private static long sent(List<Instance> instances) {
		return instances.stream().mapToLong(Instance::sent).sum();
	}

	/**
	 * The cell's load.
	 *
	 * @param instances the limiter instances sharing the rate, each with its own Redis client
	 * @param threads the calling threads of each instance
	 * @param rate the shared rate, permits per second; every contender's limit is this many permits per second (a
	 * bucket or window of {@code rate} permits, refilled over one second)
	 * @param maxWait the longest a caller waits for its permit
	 * @param warmUp how long the load runs before the measured interval
	 * @param measure the measured interval
	 */
	record Shape(int instances, int threads, long rate, Duration maxWait, Duration warmUp, Duration measure) {

		/** The full run's, but for the measured interval. */
		static Shape of(Duration measure) {
			return new Shape(3, 8, 200, Duration.ofSeconds(1), Duration.ofSeconds(2), measure);
		}

		/**
		 * Our policy's limit: {@code rate} permits per second.
		 * @return the limit
		 */
		String limit() {
			return this.rate + "/1s";
		}

		String describe() {
			return this.instances + " instances x " + this.threads + " threads, " + this.rate
					+ " permits/s, waiting up to " + this.maxWait.toMillis() + " ms, " + this.warmUp.toMillis()
					+ " ms of warm-up, " + this.measure.toMillis() + " ms measured";
		}

	}

	/**
	 * The contenders.
	 */
	enum Kind {

		/** {@link WaitingRateLimiter} over our backend's token bucket. */
		OURS_TOKEN_BUCKET("ours, token-bucket", true),

		/** {@link WaitingRateLimiter} over our backend's GCRA. */
		OURS_GCRA("ours, gcra", true),

		/** Redisson's {@code RRateLimiter}. */
		REDISSON("Redisson `RRateLimiter`", false),

		/** Bucket4j's blocking bucket over its Lettuce proxy manager. */
		BUCKET4J("Bucket4j, blocking bucket", false);

		private final String label;

		private final boolean ours;

		Kind(String label, boolean ours) {
			this.label = label;
			this.ours = ours;
		}

		String label() {
			return this.label;
		}

		boolean ours() {
			return this.ours;
		}

		Instance start(OwnRedis server, Shape shape) {
			return switch (this) {
				case OURS_TOKEN_BUCKET -> new Ours(server, shape, Algorithm.TOKEN_BUCKET);
				case OURS_GCRA -> new Ours(server, shape, Algorithm.GCRA);
				case REDISSON -> new RedissonInstance(server, shape);
				case BUCKET4J -> new Bucket4jInstance(server, shape);
			};
		}

	}

	/**
	 * One caller's way to its permit, on one key.
	 */
	interface Waiter {

		/**
		 * Waits for one permit, up to the maximum wait.
		 * @return whether it was had
		 * @throws Exception as the contender throws
		 */
		boolean acquire() throws Exception;

	}

	/**
	 * One limiter instance with its own Redis client, as one application instance would have, the commands its
	 * client sends counted.
	 */
	abstract static class Instance implements AutoCloseable {

		/** Counts what the instance's client sends: every channel of it is given to {@link SentCommands#count}. */
		final SentCommands sent = new SentCommands();

		/**
		 * A waiter on a key, its limit the shape's.
		 * @param key the key, the same in every instance
		 * @return the waiter, shared by the instance's threads
		 */
		abstract Waiter waiter(String key);

		/**
		 * The commands this instance's client has sent so far.
		 * @return how many
		 */
		long sent() {
			return this.sent.sent();
		}

		@Override
		public abstract void close();

	}

	/**
	 * Lettuce's resources with every channel counted.
	 */
	private static ClientResources counted(SentCommands sent) {
		return ClientResources.builder().nettyCustomizer(new NettyCustomizer() {

			@Override
			public void afterChannelInitialized(Channel channel) {
				sent.count(channel);
			}

		}).build();
	}

	private static final class Ours extends Instance {

		private final ClientResources resources = counted(this.sent);

		private final OurBackend backend;

		private final Shape shape;

		private final Algorithm algorithm;

		Ours(OwnRedis server, Shape shape, Algorithm algorithm) {
			this.backend = new OurBackend(server, this.resources);
			this.shape = shape;
			this.algorithm = algorithm;
		}

		@Override
		Waiter waiter(String key) {
			WaitingRateLimiter limiter = new WaitingRateLimiter(
					this.backend.backend().create(Policy.of("waiting", this.algorithm, this.shape.limit())));
			return () -> limiter.acquire(key, 1, this.shape.maxWait()).allowed();
		}

		@Override
		public void close() {
			this.backend.close();
			this.resources.shutdown();
		}

	}

	private static final class RedissonInstance extends Instance {

		private final RedissonClient client;

		private final Shape shape;

		RedissonInstance(OwnRedis server, Shape shape) {
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + server.host() + ":" + server.port());
			config.setNettyHook(new NettyHook() {

				@Override
				public void afterBoostrapInitialization(Bootstrap bootstrap) {
				}

				@Override
				public void afterChannelInitialization(Channel channel) {
					RedissonInstance.this.sent.count(channel);
				}

			});
			this.client = Redisson.create(config);
			this.shape = shape;
		}

		@Override
		Waiter waiter(String key) {
			RRateLimiter limiter = this.client.getRateLimiter(key);
			limiter.trySetRate(RateType.OVERALL, this.shape.rate(), Duration.ofSeconds(1));
			return () -> limiter.tryAcquire(1, this.shape.maxWait());
		}

		@Override
		public void close() {
			this.client.shutdown();
		}

	}

	private static final class Bucket4jInstance extends Instance {

		private final ClientResources resources = counted(this.sent);

		private final RedisClient client;

		private final StatefulRedisConnection<String, byte[]> connection;

		private final ProxyManager<String> proxyManager;

		private final Shape shape;

		Bucket4jInstance(OwnRedis server, Shape shape) {
			this.client = RedisClient.create(this.resources, RedisURI.create(server.host(), server.port()));
			this.connection = this.client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
			this.proxyManager = Bucket4jLimiter.proxyManager(this.connection);
			this.shape = shape;
		}

		@Override
		Waiter waiter(String key) {
			BucketConfiguration configuration = Bucket4jLimiter.configuration(this.shape.rate(), Duration.ofSeconds(1));
			BlockingBucket bucket = this.proxyManager.builder().build(key, () -> configuration).asBlocking();
			return () -> bucket.tryConsume(1, this.shape.maxWait());
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown();
			this.resources.shutdown();
		}

	}

	/**
	 * One contender's measured interval in one run.
	 *
	 * @param kind the contender
	 * @param run the run, from 0
	 * @param rate the shared rate, permits per second
	 * @param seconds the measured interval
	 * @param admitted the permits each instance got in the interval
	 * @param gaveUp the calls that got no permit within their maximum wait
	 * @param errors the calls that threw
	 * @param sent the commands the instances' clients sent in the interval ({@link SentCommands})
	 * @param redis what Redis did in the interval
	 * @param clientCpuSeconds the CPU seconds this JVM used in the interval
	 * @param clientCpuBusy how busy the clients' CPU was, every process on it counted (NaN when not pinned)
	 * @param redisCpuBusy how busy Redis' CPU was, every process on it counted (NaN when not pinned)
	 */
	record Run(Kind kind, int run, long rate, double seconds, List<Long> admitted, long gaveUp, long errors, long sent,
			RedisStats.Delta redis, double clientCpuSeconds, double clientCpuBusy, double redisCpuBusy) {

		long permits() {
			return this.admitted.stream().mapToLong(Long::longValue).sum();
		}

		double perSecond() {
			return permits() / this.seconds;
		}

		/**
		 * Permits per second over the rate.
		 * @return the share, 1 at exactly the rate
		 */
		double utilisation() {
			return perSecond() / this.rate;
		}

		/**
		 * The most a limiter may admit over the interval: the rate over it plus the bucket or window a key could hold
		 * full at its start ({@code rate} permits).
		 * @return the permits
		 */
		long bound() {
			return (long) Math.floor(this.rate * this.seconds) + this.rate;
		}

		/**
		 * The permits admitted beyond {@link #bound()}.
		 * @return how many, 0 when within it
		 */
		long over() {
			return Math.max(0, permits() - bound());
		}

		double lowestShare() {
			return share(this.admitted.stream().mapToLong(Long::longValue).min().orElse(0));
		}

		double highestShare() {
			return share(this.admitted.stream().mapToLong(Long::longValue).max().orElse(0));
		}

		private double share(long permits) {
			return (permits() > 0) ? permits / (double) permits() : Double.NaN;
		}

		/**
		 * The commands the clients sent per permit: round trips, a script call counting once.
		 * @return calls per permit, NaN without permits
		 */
		double callsPerPermit() {
			return perPermit(this.sent);
		}

		/**
		 * The commands Redis executed per permit, every command counted, those a script calls included (the admin
		 * connection's {@code INFO} left out).
		 * @return commands per permit, NaN without permits
		 */
		double commandsPerPermit() {
			return perPermit(executed().values().stream().mapToLong(Long::longValue).sum());
		}

		/**
		 * The commands Redis executed in the interval, by name, {@code INFO} left out.
		 * @return calls per command
		 */
		Map<String, Long> executed() {
			Map<String, Long> executed = new LinkedHashMap<>();
			this.redis.commands().forEach((name, command) -> {
				if (!"info".equals(name)) {
					executed.put(name, command.calls());
				}
			});
			return executed;
		}

		double clientCpuMicrosPerPermit() {
			return perPermit(this.clientCpuSeconds * 1e6);
		}

		double redisCpuMicrosPerPermit() {
			return perPermit(this.redis.cpuSeconds() * 1e6);
		}

		private double perPermit(double value) {
			return (permits() > 0) ? value / permits() : Double.NaN;
		}

	}

	/**
	 * Every run of every contender.
	 *
	 * @param shape the load
	 * @param runs the runs, in the order measured
	 */
	record Result(Shape shape, List<Run> runs) {

		List<Run> of(Kind kind) {
			return this.runs.stream().filter((run) -> run.kind() == kind).toList();
		}

		Spread spread(Kind kind, ToDoubleFunction<Run> value) {
			return Spread.of(of(kind).stream().map(value::applyAsDouble).toList());
		}

		/**
		 * A value of one contender over another's, run by run (the two were measured in the same run).
		 */
		Spread ratio(Kind kind, Kind other, ToDoubleFunction<Run> value) {
			List<Run> top = of(kind);
			List<Run> bottom = of(other);
			List<Double> ratios = new ArrayList<>();
			for (int run = 0; run < Math.min(top.size(), bottom.size()); run++) {
				ratios.add(value.applyAsDouble(top.get(run)) / value.applyAsDouble(bottom.get(run)));
			}
			return Spread.of(ratios);
		}

		/**
		 * The runs in which a contender admitted more than {@link Run#bound()}.
		 */
		long runsOver(Kind kind) {
			return of(kind).stream().filter((run) -> run.over() > 0).count();
		}

		/**
		 * Per command, the median over the runs of its calls per permit, most first.
		 */
		Map<String, Double> commandsPerPermit(Kind kind) {
			List<String> names = of(kind).stream().flatMap((run) -> run.executed().keySet().stream()).distinct()
				.toList();
			Map<String, Double> medians = new LinkedHashMap<>();
			names.stream()
				.map((name) -> Map.entry(name, spread(kind,
						(run) -> run.perPermit(run.executed().getOrDefault(name, 0L))).median()))
				.sorted(Map.Entry.<String, Double>comparingByValue().reversed())
				.forEach((entry) -> medians.put(entry.getKey(), entry.getValue()));
			return medians;
		}

		long errors() {
			return this.runs.stream().mapToLong(Run::errors).sum();
		}

	}

}
