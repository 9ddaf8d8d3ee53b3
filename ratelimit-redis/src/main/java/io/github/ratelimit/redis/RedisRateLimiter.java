package io.github.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.github.ratelimit.core.AbstractRateLimiter;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;

/**
 * A policy's limiter on Redis: each decision, and each lease, is one call of the algorithm's script, which reads
 * Redis' clock, evaluates every limit and writes all of them or none; a lease's reply ends with the grant and the
 * clock. Everything constant per policy (arguments, key layout) is
 * encoded once, here.
 */
class RedisRateLimiter extends AbstractRateLimiter {

	/** What a script returns per limit: allowed (1|0), remaining, retry-after, reset-after and next-permit (us). */
	private static final int VALUES_PER_LIMIT = 5;

	private final ScriptExecutor redis;

	private final LuaScript script;

	private final StorageKeys keys;

	private final LimitArguments arguments;

	private final Limit[] limits;

	RedisRateLimiter(Policy policy, ScriptExecutor redis, LuaScript script, StorageKeys keys) {
		super(policy);
		this.redis = redis;
		this.script = script;
		this.keys = keys;
		this.arguments = new LimitArguments(policy);
		this.limits = policy.limits().toArray(Limit[]::new);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * As its Redis client does ({@link RedisRateLimiterBackend#blocking()}).
	 */
	@Override
	public boolean blocking() {
		return this.redis.blocking();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A call that times out fails with a {@link LateReplyTimeoutException} whose late reply reads as this decision.
	 */
	@Override
	protected CompletionStage<List<LimitDecision>> evaluate(String key, long permits, boolean consume) {
		return decide(key, permits, this.arguments.of(permits, consume));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A call that times out fails with a {@link LateReplyTimeoutException} whose late reply reads as this decision.
	 */
	@Override
	protected CompletionStage<List<LimitDecision>> reserve(String key, long permits, long maxWaitMicros) {
		return decide(key, permits, this.arguments.reserve(permits, maxWaitMicros));
	}

	private CompletionStage<List<LimitDecision>> decide(String key, long permits, byte[][] arguments) {
		return this.redis.run(this.script, this.keys.encodedKeys(key), arguments)
			.handle((reply, error) -> {
				if (error != null) {
					throw LateReplyTimeoutException.decided(error, (late) -> Decision.of(outcomes(late), permits));
				}
				return outcomes(reply);
			});
	}

	@Override
	protected CompletionStage<LeaseGrant> lease(String key, long minimum, long maximum) {
		return this.redis.run(this.script, this.keys.encodedKeys(key), this.arguments.lease(minimum, maximum))
			.thenApply((reply) -> {
				int at = VALUES_PER_LIMIT * this.limits.length;
				return leaseGrant(outcomes(reply), number(reply, at), minimum, number(reply, at + 1));
			});
	}

	@Override
	protected CompletionStage<Long> returnLeased(String key, long takenAtMicros, long permits) {
		return this.redis
			.run(LuaScript.fixedWindowReturn(), this.keys.encodedKeys(key),
					this.arguments.giveBack(permits, takenAtMicros))
			.thenApply((reply) -> number(reply, 0));
	}

	@Override
	protected CompletionStage<Void> clear(String key) {
		return this.redis.delete(this.keys.encodedKeys(key));
	}

	private List<LimitDecision> outcomes(List<Object> reply) {
		List<LimitDecision> outcomes = new ArrayList<>(this.limits.length);
		for (int i = 0; i < this.limits.length; i++) {
			int at = VALUES_PER_LIMIT * i;
			outcomes.add(new LimitDecision(this.limits[i], number(reply, at) == 1, number(reply, at + 1),
					number(reply, at + 2), number(reply, at + 3), number(reply, at + 4)));
		}
		return outcomes;
	}

	private static long number(List<Object> reply, int index) {
		return ((Number) reply.get(index)).longValue();
	}

}
