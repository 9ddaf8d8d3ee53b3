package io.github.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.override.ClientOverride;
import io.github.ratelimit.core.override.ClientOverrides;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Operators' overrides in one Redis hash, {@code <prefix>:overrides}, with a copy in each instance that decisions
 * read without I/O. A daemon thread ({@value #THREAD}) polls the hash's version and Redis' clock every refresh
 * interval, and reads the whole hash only when the version changed; writes are one script each and refresh the
 * writer's copy at once. Expiry is judged on Redis' clock, so instances with skewed clocks agree. While Redis cannot
 * be reached, the last copy stays in force.
 * <p>
 * As a {@link SmartLifecycle} of phase {@link #PHASE}, it stops polling when the application stops, before Spring
 * Data Redis' connection factory stops (phase 0), so that no poll meets a factory that is stopping; a poll the stop
 * cuts short is not warned of.
 */
public class RedisClientOverrides implements ClientOverrides, SmartLifecycle, AutoCloseable {

	/** The name of the polling thread. */
	public static final String THREAD = "ratelimit-overrides";

	/** The phase polling is stopped in: after the web server's (graceful) stop, before Spring Data Redis'. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	/** The longest stopping waits for a poll in flight, which it interrupts, to end. */
	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(1);

	/** The hash field that changes with every change (see {@code overrides-set.lua}). */
	static final String VERSION = "#version";

	private static final Log logger = LogFactory.getLog(RedisClientOverrides.class);

	private static final RedisScript<List<Object>> SET = script("overrides-set.lua");

	private static final RedisScript<List<Object>> REMOVE = script("overrides-remove.lua");

	private static final RedisScript<List<Object>> POLL = script("overrides-version.lua");

	private final StringRedisTemplate redis;

	private final String key;

	private final Duration refreshInterval;

	private final int maximum;

	private final ScheduledExecutorService poller;

	private final List<BiConsumer<String, String>> listeners = new CopyOnWriteArrayList<>();

	private volatile Map<String, Map<String, ClientOverride>> copy = Map.of();

	private volatile long offsetMillis;

	private long version = -1;

	private boolean failing;

	private volatile boolean stopping;

	private Set<String> unparsable = Set.of();

	/**
	 * Creates the overrides of a key prefix; {@link #start(Duration)} loads them.
	 * @param connectionFactory the Redis connections, shared with the application
	 * @param keyPrefix the namespace of every key, such as {@code ratelimit}
	 * @param refreshInterval how often the hash's version is polled
	 * @param maximum the most overrides kept
	 */
	public RedisClientOverrides(RedisConnectionFactory connectionFactory, String keyPrefix, Duration refreshInterval,
			int maximum) {
		if (refreshInterval.isNegative() || refreshInterval.isZero()) {
			throw new IllegalArgumentException("The refresh interval must be positive, was " + refreshInterval);
		}
		if (maximum < 1) {
			throw new IllegalArgumentException("The most overrides kept must be at least 1, was " + maximum);
		}
		this.redis = new StringRedisTemplate(connectionFactory);
		this.key = StorageKeys.checkPrefix(keyPrefix) + ":overrides";
		this.refreshInterval = refreshInterval;
		this.maximum = maximum;
		this.poller = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, THREAD);
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Loads the overrides, waiting at most a while for Redis (a Redis that does not answer is logged, and the copy
	 * loaded by the first poll that succeeds), then polls every refresh interval.
	 * @param firstLoad the longest the first load is waited for
	 */
	public void start(Duration firstLoad) {
		Future<?> loaded = this.poller.submit(() -> {
			loadScripts();
			poll();
		});
		try {
			loaded.get(firstLoad.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			logger.warn("Rate limit overrides were not loaded from Redis within " + firstLoad
					+ "; they apply once Redis answers");
		}
		catch (ExecutionException ex) {
			logger.warn("Rate limit overrides could not be loaded from Redis: " + ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		long interval = this.refreshInterval.toNanos();
		this.poller.scheduleWithFixedDelay(this::poll, interval, interval, TimeUnit.NANOSECONDS);
	}

	@Override
	public @Nullable ClientOverride find(String policy, String key) {
		Map<String, ClientOverride> overrides = this.copy.get(policy);
		ClientOverride override = (overrides != null) ? overrides.get(key) : null;
		return (override != null && override.expiresAt() != null && override.expiredAt(redisNow())) ? null
				: override;
	}

	/**
	 * Every override in force under a policy, from this instance's copy: as Redis held them at the last poll (or this
	 * instance's last write), also while Redis cannot be reached.
	 */
	@Override
	public List<ClientOverride> list(String policy) {
		return ClientOverride.inForce(this.copy.getOrDefault(policy, Map.of()).values(), redisNow());
	}

	/**
	 * Sets an override in Redis and applies it to this instance's copy before returning.
	 * @throws IllegalStateException when Redis holds the most overrides kept already
	 * @throws org.springframework.dao.DataAccessException when Redis cannot be reached
	 */
	@Override
	public ClientOverride set(String policy, String key, List<Limit> limits, @Nullable Duration expiresIn,
			String setBy) {
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("An override needs at least one limit, such as \"1000/1m\"");
		}
		if (expiresIn != null && (expiresIn.isNegative() || expiresIn.isZero())) {
			throw new IllegalArgumentException("An override's expiry must be positive, was " + expiresIn);
		}
		String expiresInMillis = (expiresIn != null) ? Long.toString(Math.max(1, expiresIn.toMillis())) : "0";
		List<Object> result = this.redis.execute(SET, List.of(this.key), field(policy, key),
				OverrideValues.limits(limits), expiresInMillis, setBy, Integer.toString(this.maximum));
		if (number(result.get(0)) == 0) {
			throw new IllegalStateException("There are " + number(result.get(1)) + " rate limit overrides already, "
					+ "the most kept; remove one first or raise ratelimit.overrides.maximum");
		}
		long expiresAt = number(result.get(2));
		ClientOverride override = new ClientOverride(policy, key, limits,
				(expiresAt > 0) ? Instant.ofEpochMilli(expiresAt) : null, setBy,
				Instant.ofEpochMilli(number(result.get(1))));
		refreshAfterWrite();
		return override;
	}

	/**
	 * Removes an override from Redis and from this instance's copy before returning.
	 * @throws org.springframework.dao.DataAccessException when Redis cannot be reached
	 */
	@Override
	public @Nullable ClientOverride remove(String policy, String key) {
		List<Object> result = this.redis.execute(REMOVE, List.of(this.key), field(policy, key));
		refreshAfterWrite();
		if (result.size() < 2 || result.get(1) == null) {
			return null;
		}
		ClientOverride removed = OverrideValues.parse(policy, key, (String) result.get(1));
		return (removed != null && !removed.expiredAt(Instant.ofEpochMilli(number(result.get(0))))) ? removed : null;
	}

	@Override
	public void onChange(BiConsumer<String, String> listener) {
		this.listeners.add(listener);
	}

	/**
	 * Does nothing: polling starts with {@link #start(Duration)}, when the bean is created, so that the first requests
	 * already see the overrides.
	 */
	@Override
	public void start() {
	}

	/**
	 * Stops polling, as {@link #close()} does.
	 */
	@Override
	public void stop() {
		close();
	}

	@Override
	public boolean isRunning() {
		return !this.poller.isShutdown();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Stops polling, interrupting a poll in flight and waiting a little for it to end.
	 */
	@Override
	public void close() {
		this.stopping = true;
		this.poller.shutdownNow();
		try {
			this.poller.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The hash of every override.
	 * @return its key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * The hash field of a client's override: the policy's length first, so that no policy and key run into another.
	 * @param policy the policy's name
	 * @param key the client's key
	 * @return the field
	 */
	static String field(String policy, String key) {
		return policy.length() + ":" + policy + key;
	}

	/**
	 * Polls on this thread, as the polling thread does: reads the whole hash only when its version changed, and
	 * drops overrides that expired since.
	 */
	synchronized void refresh() {
		long sent = System.currentTimeMillis();
		List<Object> polled = this.redis.execute(POLL, List.of(this.key));
		long received = System.currentTimeMillis();
		long redisMillis = Long.parseLong((String) polled.get(1)) * 1000 + Long.parseLong((String) polled.get(2)) / 1000;
		this.offsetMillis = redisMillis - (sent + received) / 2;
		long polledVersion = Long.parseLong((String) polled.get(0));
		Map<String, Map<String, ClientOverride>> next = (polledVersion != this.version) ? load() : this.copy;
		this.version = polledVersion;
		swap(withoutExpired(next, redisNow()));
	}

	/**
	 * Loads the scripts into Redis (on a Cluster, Lettuce loads them on every node), so that no call meets
	 * NOSCRIPT; a call that does (after Redis restarted) sends the script again.
	 */
	private void loadScripts() {
		try {
			this.redis.execute((RedisCallback<Object>) (connection) -> {
				for (RedisScript<?> script : List.of(SET, REMOVE, POLL)) {
					connection.scriptingCommands().scriptLoad(script.getScriptAsString().getBytes(StandardCharsets.UTF_8));
				}
				return null;
			});
		}
		catch (RuntimeException ex) {
			logger.debug("Rate limit overrides' scripts not loaded; calls will load them", ex);
		}
	}

	/** The write is done: if reading it back fails, the next poll applies it. */
	private void refreshAfterWrite() {
		try {
			refresh();
		}
		catch (RuntimeException ex) {
			logger.debug("Rate limit overrides not refreshed after a write; the next poll will", ex);
		}
	}

	private void poll() {
		try {
			refresh();
			if (this.failing) {
				this.failing = false;
				logger.info("Rate limit overrides are read from Redis again");
			}
		}
		catch (RuntimeException ex) {
			if (this.stopping) {
				logger.debug("Rate limit overrides' poll cut short by stopping", ex);
			}
			else if (!this.failing) {
				this.failing = true;
				logger.warn("Rate limit overrides cannot be read from Redis; the last ones read stay in force until "
						+ "it answers: " + ex);
			}
		}
	}

	private Map<String, Map<String, ClientOverride>> load() {
		Map<String, Map<String, ClientOverride>> loaded = new ConcurrentHashMap<>();
		Set<String> invalid = new HashSet<>();
		this.redis.<String, String>opsForHash().entries(this.key).forEach((field, value) -> {
			if (VERSION.equals(field)) {
				return;
			}
			ClientOverride override = OverrideValues.parse(field, value);
			if (override == null) {
				invalid.add(field);
				if (!this.unparsable.contains(field)) {
					logger.warn("Skipped a rate limit override in Redis that could not be read: " + this.key + " "
							+ field + " = " + value);
				}
				return;
			}
			loaded.computeIfAbsent(override.policy(), (policy) -> new ConcurrentHashMap<>())
				.put(override.key(), override);
		});
		this.unparsable = invalid;
		return loaded;
	}

	private static Map<String, Map<String, ClientOverride>> withoutExpired(
			Map<String, Map<String, ClientOverride>> overrides, Instant now) {
		Map<String, Map<String, ClientOverride>> kept = new ConcurrentHashMap<>();
		overrides.forEach((policy, byKey) -> byKey.forEach((key, override) -> {
			if (!override.expiredAt(now)) {
				kept.computeIfAbsent(policy, (name) -> new ConcurrentHashMap<>()).put(key, override);
			}
		}));
		return kept;
	}

	private void swap(Map<String, Map<String, ClientOverride>> next) {
		Map<String, Map<String, ClientOverride>> previous = this.copy;
		this.copy = next;
		List<String[]> changed = new ArrayList<>();
		previous.forEach((policy, byKey) -> byKey.forEach((key, override) -> {
			if (!Objects.equals(override, next.getOrDefault(policy, Map.of()).get(key))) {
				changed.add(new String[] { policy, key });
			}
		}));
		next.forEach((policy, byKey) -> byKey.keySet().forEach((key) -> {
			if (!previous.getOrDefault(policy, Map.of()).containsKey(key)) {
				changed.add(new String[] { policy, key });
			}
		}));
		for (String[] change : changed) {
			for (BiConsumer<String, String> listener : this.listeners) {
				listener.accept(change[0], change[1]);
			}
		}
	}

	private Instant redisNow() {
		return Instant.ofEpochMilli(System.currentTimeMillis() + this.offsetMillis);
	}

	private static long number(Object value) {
		return (value instanceof Number number) ? number.longValue() : Long.parseLong(value.toString());
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Object>> script(String name) {
		return (RedisScript) RedisScript.of(new ClassPathResource(name, RedisClientOverrides.class), List.class);
	}

}
