package io.github.ratelimit.spring;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A chain's step of one permit whose key the test supplies: to see when a step's key is asked for, or to fail it.
 * @param policy the step's policy
 * @param key supplies the key each time it is asked for
 */
record KeyedStep(PolicyDefinition policy, Supplier<CompletionStage<String>> key) implements RateLimitChain.Step {

	@Override
	public CompletionStage<String> key(@Nullable RateLimitRequest request) {
		return this.key.get();
	}

	@Override
	public long permits(PolicyPlan plan, @Nullable RateLimitRequest request) {
		return 1;
	}

}
