package io.github.ratelimit.docs.scaling;

import java.util.concurrent.ThreadLocalRandom;

import io.github.ratelimit.spring.KeyResolver;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The scaling page's example: one hot limit split into sub-limits on keys of their own.
 */
@Configuration(proxyBeanMethods = false)
class ShardedGlobalLimit {

	// tag::sharded-global[]
	static final int SHARDS = 5; // N: the hot key's decisions per second / what one master may take

	@Bean
	KeyResolver shardedGlobal() { // policy: key: bean:shardedGlobal, limits: "<C/N>/<period>"
		return (request) -> "global#" + ThreadLocalRandom.current().nextInt(SHARDS);
	}
	// end::sharded-global[]

}
