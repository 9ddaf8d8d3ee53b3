package io.github.ratelimit.spring.web;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RequestKeyResolvers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Warns once, when the application has started with Spring Boot's {@code framework} forwarded-header strategy, that
 * the policies keyed by client IP count whatever address the client writes first in {@code X-Forwarded-For}.
 */
public class ForwardedHeadersWarning implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(ForwardedHeadersWarning.class);

	private final RateLimitRegistry registry;

	private final AtomicBoolean warned = new AtomicBoolean();

	/**
	 * Creates the warning, for an application whose {@code server.forward-headers-strategy} is {@code framework}.
	 * @param registry the policies
	 */
	public ForwardedHeadersWarning(RateLimitRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		List<String> byIp = this.registry.policies().stream().filter(this::keysByIp).map(PolicyDefinition::name)
			.toList();
		if (!byIp.isEmpty() && this.warned.compareAndSet(false, true)) {
			logger.warn("server.forward-headers-strategy=framework takes the client's address from the leftmost "
					+ "X-Forwarded-For (or Forwarded) value, which the client writes unless the edge proxy overwrites "
					+ "the header: rate limit policies " + String.join(", ", byIp) + " count each address a client "
					+ "makes up as a new client. Use server.forward-headers-strategy=native with your proxies trusted "
					+ "(server.tomcat.remoteip.internal-proxies, server.tomcat.remoteip.trusted-proxies), or make sure "
					+ "the edge proxy overwrites X-Forwarded-For; see 'Keys and proxies' in the ratelimit README.");
		}
	}

	/** Whether requests meet the policy keyed by client IP: through the filter, or an annotation without a key. */
	private boolean keysByIp(PolicyDefinition policy) {
		if (!RequestKeyResolvers.isIp(policy.keyStrategy())) {
			return false;
		}
		return !policy.paths().isEmpty()
				|| this.registry.uses(policy.name()).stream().anyMatch((use) -> use.key().equals(policy.keyStrategy()));
	}

}
