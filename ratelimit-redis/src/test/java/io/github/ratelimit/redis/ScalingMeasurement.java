package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The measurements behind {@code docs/scaling.md}, run by hand (not a test: no test asserts a speed). For each
 * algorithm, on an embedded Redis server of its own: decisions per second through {@link RedisRateLimiterBackend}
 * with 1 and 16 threads over many clients and on one hot key, Redis' own time per decision (INFO commandstats), and
 * memory per client (MEMORY USAGE of one client's key, and used_memory grown by 100,000 clients).
 * <p>
 * Run with {@code java -cp <test classpath> io.github.ratelimit.redis.ScalingMeasurement [seconds per run]}.
 */
public final class ScalingMeasurement {

	private static final int CLIENTS = 100_000;

	private static final RedisScript<Long> MEMORY_USAGE = RedisScript
		.of("return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')", Long.class);

	private ScalingMeasurement() {
	}

	public static void main(String[] arguments) throws Exception {
		Duration run = Duration.ofSeconds((arguments.length > 0) ? Long.parseLong(arguments[0]) : 5);
		EmbeddedRedis redis = EmbeddedRedis.start(TestRedis.freePort());
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		factory.afterPropertiesSet();
		factory.start();
		try {
			StringRedisTemplate template = new StringRedisTemplate(factory);
			RedisRateLimiterBackend backend = new RedisRateLimiterBackend(factory, "ratelimit", TestRedis.TIMEOUT);
			System.out.println("Redis " + info(template, "server").getProperty("redis_version") + ", "
					+ Runtime.getRuntime().availableProcessors() + " cores seen by the JVM, " + run.toSeconds()
					+ " s per run");
			System.out.println();
			System.out.println("| algorithm | 1 thread, many clients | 16 threads, many clients | 16 threads, one hot key "
					+ "| Redis time per decision (1 / 16 threads) | MEMORY USAGE of one client's key | used_memory per client |");
			System.out.println("|---|---|---|---|---|---|---|");
			// warm the JIT up before anything is measured
			throughput(backend.create(Policy.of("warm-up", Algorithm.TOKEN_BUCKET, "100000000/1h")), 16, false,
					Duration.ofSeconds(3));
			for (Algorithm algorithm : Algorithm.values()) {
				flush(template);
				// a limit that admits nearly everything: the cost of deciding, not of refusing (within each
				// algorithm's bounds: sliding-window capacity x period, sliding-log capacity)
				Policy policy = Policy.of("api", algorithm, switch (algorithm) {
					case SLIDING_WINDOW -> "2000000/1h";
					case SLIDING_LOG -> "500/1ms";
					default -> "100000000/1h";
				});
				RateLimiter limiter = backend.create(policy);
				resetCommandStats(template);
				double one = throughput(limiter, 1, false, run);
				double usecOne = evalUsecPerCall(template);
				resetCommandStats(template);
				double sixteen = throughput(limiter, 16, false, run);
				double usecSixteen = evalUsecPerCall(template);
				double hot = throughput(limiter, 16, true, run);
				flush(template);
				// a long period, so that no key expires while 100,000 clients are stored
				Policy small = Policy.of("api", algorithm, "100/1d");
				RateLimiter smallLimiter = backend.create(small);
				smallLimiter.tryAcquire(client(1));
				long keyBytes = memoryUsage(template, key(small, 1));
				long before = usedMemory(template);
				fill(smallLimiter, CLIENTS);
				long perClient = (usedMemory(template) - before) / CLIENTS;
				System.out.printf("| `%s` | %,.0f/s | %,.0f/s | %,.0f/s | %.1f µs / %.1f µs | %d B | %d B |%n",
						algorithm.id(), one, sixteen, hot, usecOne, usecSixteen, keyBytes, perClient);
			}
			flush(template);
			System.out.println();
			System.out.println("sliding-log key size by permits in the log (limit 500/1h):");
			RateLimiter log = backend.create(Policy.of("api", Algorithm.SLIDING_LOG, "500/1h"));
			for (int permits : new int[] { 1, 10, 100, 500 }) {
				String client = "log-" + permits;
				for (int i = 0; i < permits; i++) {
					log.tryAcquire(client);
				}
				String key = new StorageKeys("ratelimit", log.policy()).keys(client).get(0);
				long bytes = memoryUsage(template, key);
				System.out.printf("  %4d permits: %,d B%n", permits, bytes);
			}
		}
		finally {
			factory.destroy();
			redis.stop();
		}
	}

	private static String client(int i) {
		return "10." + ((i >> 16) & 255) + "." + ((i >> 8) & 255) + "." + (i & 255);
	}

	private static String key(Policy policy, int client) {
		return new StorageKeys("ratelimit", policy).keys(client(client)).get(0);
	}

	private static double throughput(RateLimiter limiter, int threads, boolean hotKey, Duration run)
			throws Exception {
		AtomicBoolean stop = new AtomicBoolean();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			// a warm-up of a second, then the measured run
			List<Future<Long>> warmUp = start(executor, limiter, threads, hotKey, stop);
			Thread.sleep(1000);
			stop.set(true);
			for (Future<Long> result : warmUp) {
				result.get();
			}
			stop.set(false);
			long begin = System.nanoTime();
			List<Future<Long>> results = start(executor, limiter, threads, hotKey, stop);
			Thread.sleep(run.toMillis());
			stop.set(true);
			long decisions = 0;
			for (Future<Long> result : results) {
				decisions += result.get();
			}
			return decisions / ((System.nanoTime() - begin) / 1e9);
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static List<Future<Long>> start(ExecutorService executor, RateLimiter limiter, int threads,
			boolean hotKey, AtomicBoolean stop) {
		List<Future<Long>> results = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			results.add(executor.submit(() -> {
				long decisions = 0;
				int i = thread;
				while (!stop.get()) {
					limiter.tryAcquire(hotKey ? "hot" : client(i % CLIENTS));
					i += threads;
					decisions++;
				}
				return decisions;
			}));
		}
		return results;
	}

	private static void fill(RateLimiter limiter, int clients) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> results = new ArrayList<>();
			for (int t = 0; t < 16; t++) {
				int thread = t;
				results.add(executor.submit(() -> {
					for (int i = thread; i < clients; i += 16) {
						limiter.tryAcquire(client(i));
					}
				}));
			}
			for (Future<?> result : results) {
				result.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static long memoryUsage(StringRedisTemplate template, String key) {
		return template.execute(MEMORY_USAGE, List.of(key));
	}

	private static double evalUsecPerCall(StringRedisTemplate template) {
		Properties stats = info(template, "commandstats");
		String line = stats.getProperty("cmdstat_evalsha");
		return Double.parseDouble(line.replaceAll("^.*usec_per_call=([0-9.]+).*$", "$1"));
	}

	private static void resetCommandStats(StringRedisTemplate template) {
		template.execute((RedisCallback<Object>) (connection) -> {
			connection.serverCommands().resetConfigStats();
			return null;
		});
	}

	private static long usedMemory(StringRedisTemplate template) {
		return Long.parseLong(info(template, "memory").getProperty("used_memory"));
	}

	private static Properties info(StringRedisTemplate template, String section) {
		return template.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info(section));
	}

	private static void flush(StringRedisTemplate template) {
		template.execute((RedisCallback<Object>) (connection) -> {
			connection.serverCommands().flushAll();
			return null;
		});
	}

}
