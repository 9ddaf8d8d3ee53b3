package io.github.ratelimit.spring;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Lets SpEL read the request in a native image: {@code expr:} keys and plans, and {@code @RateLimited} keys and costs
 * through {@code #request} and {@code #principal}. SpEL calls the public methods of an object's runtime class, so the
 * request and principal types of the servers and of Spring Security are registered when present, with the types their
 * methods commonly return. An application's own argument types need their own hints (such as
 * {@code @RegisterReflectionForBinding}).
 */
class RequestExpressionRuntimeHints implements RuntimeHintsRegistrar {

	/** Names, never classes: each stack and server is optional. */
	static final List<String> TYPES = List.of(
			// the Servlet API, Tomcat's and Jetty's requests, and Spring Security's wrappers of them
			"jakarta.servlet.ServletRequest", "jakarta.servlet.http.HttpServletRequest",
			"jakarta.servlet.ServletRequestWrapper", "jakarta.servlet.http.HttpServletRequestWrapper",
			"jakarta.servlet.http.Cookie", "org.apache.catalina.connector.RequestFacade",
			"org.eclipse.jetty.ee11.servlet.ServletApiRequest",
			"org.springframework.security.web.firewall.FirewalledRequest",
			"org.springframework.security.web.firewall.StrictHttpFirewall$StrictFirewalledRequest",
			"org.springframework.security.web.servletapi.SecurityContextHolderAwareRequestWrapper",
			"org.springframework.security.web.servletapi.HttpServlet3RequestFactory$Servlet3SecurityContextHolderAwareRequestWrapper",
			// WebFlux's request on Reactor Netty, Tomcat and Jetty, as built and as mutated
			"org.springframework.http.HttpMessage", "org.springframework.http.HttpRequest",
			"org.springframework.http.ReactiveHttpInputMessage",
			"org.springframework.http.server.reactive.ServerHttpRequest",
			"org.springframework.http.server.reactive.AbstractServerHttpRequest",
			"org.springframework.http.server.reactive.ReactorServerHttpRequest",
			"org.springframework.http.server.reactive.ServletServerHttpRequest",
			"org.springframework.http.server.reactive.TomcatHttpHandlerAdapter$TomcatServerHttpRequest",
			"org.springframework.http.server.reactive.JettyCoreServerHttpRequest",
			"org.springframework.http.server.reactive.ServerHttpRequestDecorator",
			"org.springframework.http.server.reactive.DefaultServerHttpRequestBuilder$MutatedServerHttpRequest",
			"org.springframework.http.HttpHeaders", "org.springframework.http.HttpCookie",
			"org.springframework.http.HttpMethod", "org.springframework.http.server.RequestPath",
			"org.springframework.http.server.DefaultRequestPath", "org.springframework.http.server.PathContainer",
			"org.springframework.util.MultiValueMap", "org.springframework.util.LinkedMultiValueMap",
			"org.springframework.util.MultiValueMapAdapter", "java.net.URI", "java.net.InetSocketAddress",
			"java.net.InetAddress", "java.net.Inet4Address", "java.net.Inet6Address",
			// principals
			"java.security.Principal", "org.springframework.security.core.Authentication",
			"org.springframework.security.authentication.AbstractAuthenticationToken",
			"org.springframework.security.authentication.UsernamePasswordAuthenticationToken");

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (String type : TYPES) {
			hints.reflection().registerTypeIfPresent(classLoader, type, MemberCategory.INVOKE_PUBLIC_METHODS);
		}
	}

}
