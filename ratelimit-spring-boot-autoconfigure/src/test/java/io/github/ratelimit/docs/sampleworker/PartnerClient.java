package io.github.ratelimit.docs.sampleworker;

import java.util.concurrent.CompletableFuture;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.stereotype.Component;

/**
 * The worker sample's README: its policy {@code partner} is applied by the sample's {@code PartnerClient}, which this
 * stands in for while the README's configuration block is started.
 */
@Component
class PartnerClient {

	@RateLimited(value = "partner", maxWait = "2s")
	public CompletableFuture<String> call() {
		return CompletableFuture.completedFuture("ok");
	}

}
