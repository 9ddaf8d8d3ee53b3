package io.github.ratelimit.autoconfigure;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RequestKeyResolvers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.util.ClassUtils;

/**
 * Warns once, when the application has started with a forwarded-header strategy that lets clients choose the address
 * the policies keyed by client IP count them by: Spring Boot's {@code framework} strategy on any server, and its
 * {@code native} strategy on Reactor Netty, whose forwarded-header handling trusts every connection. Both take the
 * leftmost {@code X-Forwarded-For} (or {@code Forwarded}) value, which the client writes unless the edge proxy
 * overwrites the header.
 */
class ForwardedHeadersWarning implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(ForwardedHeadersWarning.class);

	/** A class of Spring Boot's Reactor Netty server, present when a reactive application runs on it. */
	private static final String NETTY_WEB_SERVER = "org.springframework.boot.reactor.netty.NettyWebServer";

	private final RateLimitRegistry registry;

	private final String strategy;

	private final AtomicBoolean warned = new AtomicBoolean();

	/**
	 * Creates the warning, for an application that set {@code server.forward-headers-strategy}.
	 * @param registry the policies
	 * @param strategy the value of {@code server.forward-headers-strategy}, in any case
	 */
	ForwardedHeadersWarning(RateLimitRegistry registry, String strategy) {
		this.registry = registry;
		this.strategy = strategy.toLowerCase(Locale.ROOT);
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		String advice = advice(event.getApplicationContext());
		if (advice == null) {
			return;
		}
		List<String> byIp = this.registry.policies().stream().filter(this::keysByIp).map(PolicyDefinition::name)
			.toList();
		if (!byIp.isEmpty() && this.warned.compareAndSet(false, true)) {
			logger.warn("server.forward-headers-strategy=" + this.strategy + advice.formatted(String.join(", ", byIp)));
		}
	}

	/**
	 * What to tell the user of an application with this strategy, the policies' names left to fill in; {@code null}
	 * when the strategy is safe behind trusted proxies.
	 */
	private @Nullable String advice(ApplicationContext context) {
		if (context instanceof ReactiveWebApplicationContext
				&& ClassUtils.isPresent(NETTY_WEB_SERVER, context.getClassLoader())
				&& (this.strategy.equals("native") || this.strategy.equals("framework"))) {
			return " on Reactor Netty takes the client's address from the leftmost X-Forwarded-For (or Forwarded) "
					+ "value, from any connection, which the client writes unless the edge proxy overwrites the "
					+ "header: rate limit policies %s count each address a client makes up as a new client. Make "
					+ "sure the edge proxy overwrites X-Forwarded-For and Forwarded, or leave "
					+ "server.forward-headers-strategy unset and register a NettyServerCustomizer whose "
					+ "HttpServer.forwarded(..) handler believes only your proxies; see 'Keys and proxies' in "
					+ "docs/keys.md of the ratelimit guide.";
		}
		if (this.strategy.equals("framework")) {
			return " takes the client's address from the leftmost X-Forwarded-For (or Forwarded) value, which the "
					+ "client writes unless the edge proxy overwrites the header: rate limit policies %s count each "
					+ "address a client makes up as a new client. Use server.forward-headers-strategy=native with "
					+ "your proxies trusted (server.tomcat.remoteip.internal-proxies, "
					+ "server.tomcat.remoteip.trusted-proxies), or make sure the edge proxy overwrites "
					+ "X-Forwarded-For; see 'Keys and proxies' in docs/keys.md of the ratelimit guide.";
		}
		return null;
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
