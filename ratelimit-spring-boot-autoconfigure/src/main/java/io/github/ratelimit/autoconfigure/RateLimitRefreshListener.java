package io.github.ratelimit.autoconfigure;

import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;

/**
 * Hands Spring Cloud's environment changes to the {@link RateLimitRefresher}, before Spring Cloud rebinds
 * configuration properties beans (whose failure on an invalid value would end the event before it is seen).
 */
final class RateLimitRefreshListener implements ApplicationListener<EnvironmentChangeEvent>, Ordered {

	private final RateLimitRefresher refresher;

	RateLimitRefreshListener(RateLimitRefresher refresher) {
		this.refresher = refresher;
	}

	@Override
	public void onApplicationEvent(EnvironmentChangeEvent event) {
		this.refresher.refresh(event.getKeys());
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
