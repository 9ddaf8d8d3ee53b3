package io.github.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;

import io.github.ratelimit.core.AbstractRateLimiter;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.LimitDecision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The backend's scripts run at a time the test supplies: Redis' {@code TIME} cannot be set, so {@code common.lua}'s
 * clock is replaced by a read of an extra last argument, and no TTL set in real time for a supplied time may run out
 * between calls: the script's {@code PEXPIRE} calls become calls of a function that does nothing (their arguments still
 * evaluated), and the keys are made persistent at its end (for the TTLs {@code SET ... PX} gives). {@code PERSIST}
 * alone was not enough: a sliding-log script writing hundreds of members runs over a millisecond, and Redis 6.2 then
 * deleted a key it had just given a 1 ms TTL at once. Nothing else of the script changes, which {@link #of} asserts.
 * {@link #backend} decides with them at the time of a clock, as the Redis backend would at that time.
 */
public final class SuppliedClockScripts {

	private static final String REDIS_CLOCK = "local clock = redis.call('TIME')\nlocal now = clock[1] * 1000000 + clock[2]\n";

	private static final String SUPPLIED_CLOCK = "local now = ARGV[#ARGV] + 0\n";

	private static final String RETURN = "\nreturn result\n";

	private static final String PERSIST_AND_RETURN = "\nfor i = 1, #KEYS do redis.call('PERSIST', KEYS[i]) end\nreturn result\n";

	private static final String EXPIRE = "redis.call('PEXPIRE', ";

	private static final String NO_EXPIRE = "pcall(function() end, ";

	private SuppliedClockScripts() {
	}

	/**
	 * The script of an algorithm, deciding at the time given as its last argument, leaving keys without a TTL.
	 * @param algorithm the algorithm
	 * @return the script
	 */
	public static RedisScript<List<Long>> of(Algorithm algorithm) {
		return supplied(LuaScript.of(algorithm).source());
	}

	private static RedisScript<List<Long>> supplied(String source) {
		assertThat(source).contains(REDIS_CLOCK).endsWith(RETURN);
		int expiries = source.split(Pattern.quote(EXPIRE), -1).length - 1;
		String supplied = source.replace(REDIS_CLOCK, SUPPLIED_CLOCK).replace(EXPIRE, NO_EXPIRE);
		supplied = supplied.substring(0, supplied.length() - RETURN.length()) + PERSIST_AND_RETURN;
		assertThat(supplied).as("only the clock of common.lua and the expiry were replaced")
			.doesNotContain("'TIME'", "PEXPIRE")
			.contains(SUPPLIED_CLOCK)
			.endsWith(PERSIST_AND_RETURN)
			.hasSize(source.length() - REDIS_CLOCK.length() + SUPPLIED_CLOCK.length()
					+ expiries * (NO_EXPIRE.length() - EXPIRE.length()) - RETURN.length()
					+ PERSIST_AND_RETURN.length());
		@SuppressWarnings({ "unchecked", "rawtypes" })
		RedisScript<List<Long>> script = (RedisScript) RedisScript.of(supplied, List.class);
		return script;
	}

	/**
	 * Runs a policy's script at a time, with the backend's own arguments, and reads each limit's outcome as the
	 * backend does.
	 * @param redis the connection
	 * @param policy the policy
	 * @param keys one key per limit
	 * @param permits the permits asked for
	 * @param consume whether to take them when admitted
	 * @param now the time in microseconds since the epoch
	 * @return one outcome per limit
	 */
	public static List<LimitDecision> run(StringRedisTemplate redis, Policy policy, List<String> keys, long permits,
			boolean consume, long now) {
		List<String> arguments = new ArrayList<>(RedisRateLimiterBackend.scriptArguments(policy, permits, consume));
		arguments.add(Long.toString(now));
		List<Long> reply = redis.execute(of(policy.algorithm()), keys, arguments.toArray());
		assertThat(reply).hasSize(5 * policy.limits().size());
		return outcomes(policy, reply);
	}

	/**
	 * Reserves with a policy's script at a time, with the backend's own arguments, and reads each limit's outcome as
	 * the backend does.
	 * @param redis the connection
	 * @param policy the policy, of a reservable algorithm
	 * @param keys one key per limit
	 * @param permits the permits asked for
	 * @param maxWaitMicros the longest the caller waits
	 * @param now the time in microseconds since the epoch
	 * @return one outcome per limit
	 */
	public static List<LimitDecision> reserve(StringRedisTemplate redis, Policy policy, List<String> keys, long permits,
			long maxWaitMicros, long now) {
		List<Long> reply = redis.execute(of(policy.algorithm()), keys,
				arguments(new LimitArguments(policy).reserve(permits, maxWaitMicros), now));
		assertThat(reply).hasSize(5 * policy.limits().size());
		return outcomes(policy, reply);
	}

	/**
	 * Takes a lease with a policy's script at a time, with the backend's own arguments, and reads the grant as the
	 * backend does.
	 * @param redis the connection
	 * @param policy the policy, of a leasable algorithm
	 * @param keys one key per limit
	 * @param minimum the fewest permits worth taking, at most the smallest capacity
	 * @param maximum the most permits to take, at most the smallest capacity
	 * @param now the time in microseconds since the epoch
	 * @return the grant
	 */
	public static LeaseGrant lease(StringRedisTemplate redis, Policy policy, List<String> keys, long minimum,
			long maximum, long now) {
		List<Long> reply = redis.execute(of(policy.algorithm()), keys,
				arguments(new LimitArguments(policy).lease(minimum, maximum), now));
		int at = 5 * policy.limits().size();
		assertThat(reply).hasSize(at + 2);
		long granted = reply.get(at);
		return new LeaseGrant(granted, Decision.of(outcomes(policy, reply), (granted > 0) ? granted : minimum),
				reply.get(at + 1));
	}

	/**
	 * Gives a fixed window's leased permits back with {@code fixed-window-return.lua} at a time.
	 * @param redis the connection
	 * @param policy the policy, of the fixed window
	 * @param keys one key per limit
	 * @param takenAt when the permits were taken, in microseconds since the epoch
	 * @param permits the permits given back
	 * @param now the time in microseconds since the epoch
	 * @return the fewest permits any limit took back
	 */
	public static long giveBack(StringRedisTemplate redis, Policy policy, List<String> keys, long takenAt,
			long permits, long now) {
		List<Long> reply = redis.execute(supplied(LuaScript.fixedWindowReturn().source()), keys,
				arguments(new LimitArguments(policy).giveBack(permits, takenAt), now));
		assertThat(reply).hasSize(1);
		return reply.get(0);
	}

	/**
	 * A backend whose limiters decide with these scripts at the time of a clock, on the Redis backend's keys (prefix
	 * {@code ratelimit}) and arguments, with its limiters' validation and combination of limits.
	 * @param redis the connection
	 * @param clock the clock every decision reads
	 * @return the backend
	 */
	public static RateLimiterBackend backend(StringRedisTemplate redis, Clock clock) {
		return new RateLimiterBackend() {

			@Override
			public RateLimiter create(Policy policy) {
				return new SuppliedClockRateLimiter(redis, clock, policy);
			}

			@Override
			public String name() {
				return "redis at a supplied time";
			}

		};
	}

	private static Object[] arguments(byte[][] encoded, long now) {
		List<String> arguments = new ArrayList<>();
		for (byte[] argument : encoded) {
			arguments.add(new String(argument, StandardCharsets.US_ASCII));
		}
		arguments.add(Long.toString(now));
		return arguments.toArray();
	}

	private static List<LimitDecision> outcomes(Policy policy, List<Long> reply) {
		List<LimitDecision> outcomes = new ArrayList<>(policy.limits().size());
		for (int i = 0; i < policy.limits().size(); i++) {
			int at = 5 * i;
			outcomes.add(new LimitDecision(policy.limits().get(i), reply.get(at) == 1, reply.get(at + 1),
					reply.get(at + 2), reply.get(at + 3), reply.get(at + 4)));
		}
		return outcomes;
	}

	/**
	 * A policy's limiter deciding with the scripts at the time of a clock.
	 */
	private static final class SuppliedClockRateLimiter extends AbstractRateLimiter {

		private final StringRedisTemplate redis;

		private final Clock clock;

		private final StorageKeys keys;

		SuppliedClockRateLimiter(StringRedisTemplate redis, Clock clock, Policy policy) {
			super(policy);
			this.redis = redis;
			this.clock = clock;
			this.keys = new StorageKeys("ratelimit", policy);
		}

		@Override
		protected CompletionStage<List<LimitDecision>> evaluate(String key, long permits, boolean consume) {
			return CompletableFuture
				.completedFuture(run(this.redis, policy(), this.keys.keys(key), permits, consume, now()));
		}

		@Override
		protected CompletionStage<List<LimitDecision>> reserve(String key, long permits, long maxWaitMicros) {
			return CompletableFuture.completedFuture(
					SuppliedClockScripts.reserve(this.redis, policy(), this.keys.keys(key), permits, maxWaitMicros, now()));
		}

		@Override
		protected CompletionStage<LeaseGrant> lease(String key, long minimum, long maximum) {
			List<String> keys = this.keys.keys(key);
			return CompletableFuture.completedFuture(SuppliedClockScripts.lease(this.redis, policy(), keys, minimum,
					maximum, now()));
		}

		@Override
		protected CompletionStage<Long> returnLeased(String key, long takenAtMicros, long permits) {
			return CompletableFuture
				.completedFuture(giveBack(this.redis, policy(), this.keys.keys(key), takenAtMicros, permits, now()));
		}

		@Override
		protected CompletionStage<Void> clear(String key) {
			this.redis.delete(this.keys.keys(key));
			return CompletableFuture.completedFuture(null);
		}

		private long now() {
			return ChronoUnit.MICROS.between(Instant.EPOCH, this.clock.instant());
		}

	}

}
