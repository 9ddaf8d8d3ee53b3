package io.github.ratelimit.sample.worker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker has no web stack on its class path: no Servlet API, no Spring MVC or WebFlux, no HTTP server, so Spring
 * Boot starts it as a plain (non-web) application without being told. spring-web itself is there, a library without
 * a server: the starter's exceptions are Spring's {@code ErrorResponseException}s.
 */
class NoWebStackTests {

	@ParameterizedTest
	@ValueSource(strings = { "jakarta.servlet.Servlet", "org.springframework.web.servlet.DispatcherServlet",
			"org.springframework.web.reactive.DispatcherHandler", "org.springframework.boot.web.server.WebServer",
			"org.apache.catalina.startup.Tomcat", "org.eclipse.jetty.server.Server", "io.undertow.Undertow",
			"reactor.netty.http.server.HttpServer" })
	void webStackClassIsNotOnTheClassPath(String className) {
		assertThat(ClassUtils.isPresent(className, null)).isFalse();
	}

	@Test
	void springBootStartsTheWorkerAsANonWebApplication() {
		assertThat(new SpringApplication(SampleWorkerApplication.class).getWebApplicationType())
			.isEqualTo(WebApplicationType.NONE);
	}

}
