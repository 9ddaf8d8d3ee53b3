package io.github.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.Policy;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The backend's scripts run at a time the test supplies: Redis' {@code TIME} cannot be set, so {@code common.lua}'s
 * clock is replaced by a read of an extra last argument, and the keys are made persistent at the end of the script,
 * so that no TTL set for a microsecond runs out before the next call. Nothing else of the script changes, which
 * {@link #of} asserts.
 */
public final class SuppliedClockScripts {

	private static final String REDIS_CLOCK = "local clock = redis.call('TIME')\nlocal now = clock[1] * 1000000 + clock[2]\n";

	private static final String SUPPLIED_CLOCK = "local now = ARGV[#ARGV] + 0\n";

	private static final String RETURN = "\nreturn result\n";

	private static final String PERSIST_AND_RETURN = "\nfor i = 1, #KEYS do redis.call('PERSIST', KEYS[i]) end\nreturn result\n";

	private SuppliedClockScripts() {
	}

	/**
	 * The script of an algorithm, deciding at the time given as its last argument, leaving keys without a TTL.
	 * @param algorithm the algorithm
	 * @return the script
	 */
	public static RedisScript<List<Long>> of(Algorithm algorithm) {
		String source = LuaScript.of(algorithm).source();
		assertThat(source).contains(REDIS_CLOCK).endsWith(RETURN);
		String supplied = source.replace(REDIS_CLOCK, SUPPLIED_CLOCK);
		supplied = supplied.substring(0, supplied.length() - RETURN.length()) + PERSIST_AND_RETURN;
		assertThat(supplied).as("only the clock of common.lua and the expiry were replaced")
			.doesNotContain("'TIME'")
			.contains(SUPPLIED_CLOCK)
			.endsWith(PERSIST_AND_RETURN)
			.hasSize(source.length() - REDIS_CLOCK.length() + SUPPLIED_CLOCK.length() - RETURN.length()
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
	public static List<LimitOutcome> run(StringRedisTemplate redis, Policy policy, List<String> keys, long permits,
			boolean consume, long now) {
		List<String> arguments = new ArrayList<>(RedisRateLimiterBackend.scriptArguments(policy, permits, consume));
		arguments.add(Long.toString(now));
		List<Long> reply = redis.execute(of(policy.algorithm()), keys, arguments.toArray());
		assertThat(reply).hasSize(5 * policy.limits().size());
		List<LimitOutcome> outcomes = new ArrayList<>(policy.limits().size());
		for (int i = 0; i < policy.limits().size(); i++) {
			int at = 5 * i;
			outcomes.add(new LimitOutcome(policy.limits().get(i), reply.get(at) == 1, reply.get(at + 1),
					reply.get(at + 2), reply.get(at + 3), reply.get(at + 4)));
		}
		return outcomes;
	}

}
