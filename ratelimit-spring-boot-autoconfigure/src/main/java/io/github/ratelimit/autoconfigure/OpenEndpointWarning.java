package io.github.ratelimit.autoconfigure;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.util.ClassUtils;

/**
 * Warns at start-up when anyone who can reach the {@code ratelimits} endpoint over HTTP can write through it (set
 * and remove overrides, reset clients): the endpoint is exposed over HTTP with unrestricted access, and the
 * application has no Spring Security filter chain (servlet or WebFlux) in front of it.
 */
final class OpenEndpointWarning implements SmartInitializingSingleton, BeanFactoryAware {

	private static final EndpointId ENDPOINT = EndpointId.of("ratelimits");

	/** Spring Security's filter chains, servlet and WebFlux, named so that neither is loaded without Security. */
	private static final List<String> SECURITY_FILTER_CHAINS = List.of(
			"org.springframework.security.web.FilterChainProxy",
			"org.springframework.security.web.server.WebFilterChainProxy");

	/** The bean name of Spring Security's servlet filter chain, whatever type wraps it. */
	private static final String SECURITY_FILTER_CHAIN_BEAN = "springSecurityFilterChain";

	private static final Log logger = LogFactory.getLog(OpenEndpointWarning.class);

	private final EndpointAccessResolver access;

	private @Nullable ListableBeanFactory beanFactory;

	/**
	 * Creates the warning, for an endpoint exposed over HTTP.
	 * @param access how the endpoint's access is resolved from {@code management.endpoint(s).*access*}
	 */
	OpenEndpointWarning(EndpointAccessResolver access) {
		this.access = access;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.access.accessFor(ENDPOINT, Access.READ_ONLY) == Access.UNRESTRICTED && !secured()) {
			logger.warn("The ratelimits endpoint is exposed over HTTP with unrestricted access "
					+ "(management.endpoint.ratelimits.access or management.endpoints.access.default) and the "
					+ "application has no Spring Security: anyone who can reach it can set and remove clients' "
					+ "overrides and reset clients, anonymously. Protect it (Spring Security, or a management port "
					+ "that only operators reach), or set management.endpoint.ratelimits.access=read-only");
		}
	}

	/** Whether Spring Security filters the application's requests. */
	private boolean secured() {
		ListableBeanFactory beans = this.beanFactory;
		if (beans == null || beans.containsBean(SECURITY_FILTER_CHAIN_BEAN)) {
			return true;
		}
		ClassLoader classLoader = getClass().getClassLoader();
		for (String type : SECURITY_FILTER_CHAINS) {
			if (ClassUtils.isPresent(type, classLoader)
					&& beans.getBeanNamesForType(ClassUtils.resolveClassName(type, classLoader), true,
							false).length > 0) {
				return true;
			}
		}
		return false;
	}

}
