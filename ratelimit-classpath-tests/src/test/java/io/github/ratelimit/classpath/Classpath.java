package io.github.ratelimit.classpath;

import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What this test JVM's classpath really holds, so that each scenario proves the reduced classpath it claims.
 */
public final class Classpath {

	private Classpath() {
	}

	/**
	 * Asserts that none of these classes can be loaded: their libraries were left out of this JVM.
	 * @param classNames fully qualified class names, one of each excluded library
	 */
	public static void assertAbsent(String... classNames) {
		for (String className : classNames) {
			assertThat(present(className)).as("%s on the classpath", className).isFalse();
		}
	}

	/**
	 * Asserts that the servlet stack was left out of this JVM: the Servlet API, Tomcat (its core, EL and WebSocket
	 * jars), Spring Boot's Tomcat and servlet support, and Spring MVC with its auto-configuration.
	 */
	public static void assertServletStackAbsent() {
		assertAbsent("jakarta.servlet.http.HttpServletRequest", "org.apache.catalina.startup.Tomcat",
				"org.apache.el.ExpressionFactoryImpl", "org.apache.tomcat.websocket.WsSession",
				"org.springframework.boot.tomcat.TomcatWebServer",
				"org.springframework.boot.servlet.autoconfigure.HttpEncodingAutoConfiguration",
				"org.springframework.web.servlet.DispatcherServlet",
				"org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration");
	}

	/**
	 * Asserts that all of these classes can be loaded.
	 * @param classNames fully qualified class names
	 */
	public static void assertPresent(String... classNames) {
		for (String className : classNames) {
			assertThat(present(className)).as("%s on the classpath", className).isTrue();
		}
	}

	private static boolean present(String className) {
		return ClassUtils.isPresent(className, Classpath.class.getClassLoader());
	}

}
