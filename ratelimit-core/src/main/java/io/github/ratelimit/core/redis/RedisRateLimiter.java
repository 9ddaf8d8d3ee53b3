package io.github.ratelimit.core.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.core.AbstractRateLimiter;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimitKeys;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * A policy's limiter on Redis: each decision is one call of the algorithm's script, which reads Redis' clock,
 * evaluates every limit and writes all of them or none.
 */
class RedisRateLimiter extends AbstractRateLimiter {

	private final RedisCalls redis;

	private final RedisScript<List<Long>> script;

	private final RateLimitKeys keys;

	private final String[] limitArguments;

	RedisRateLimiter(Policy policy, RedisCalls redis, RedisScript<List<Long>> script, RateLimitKeys keys) {
		super(policy);
		this.redis = redis;
		this.script = script;
		this.keys = keys;
		this.limitArguments = limitArguments(policy);
	}

	@Override
	protected List<LimitOutcome> evaluate(String key, long permits, boolean consume) {
		String[] arguments = this.limitArguments.clone();
		arguments[0] = Long.toString(permits);
		arguments[1] = consume ? "1" : "0";
		List<Long> reply = this.redis.script(this.script, this.keys.keys(key), arguments);
		List<Limit> limits = policy().limits();
		List<LimitOutcome> outcomes = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			int at = 4 * i;
			outcomes.add(new LimitOutcome(limits.get(i), reply.get(at) == 1, reply.get(at + 1), reply.get(at + 2),
					reply.get(at + 3)));
		}
		return outcomes;
	}

	@Override
	protected void clear(String key) {
		this.redis.delete(this.keys.keys(key));
	}

	private static String[] limitArguments(Policy policy) {
		List<Limit> limits = policy.limits();
		String[] arguments = new String[2 + 2 * limits.size()];
		for (int i = 0; i < limits.size(); i++) {
			arguments[2 + 2 * i] = Long.toString(limits.get(i).capacity());
			arguments[3 + 2 * i] = Long.toString(limits.get(i).periodMicros());
		}
		return arguments;
	}

}
