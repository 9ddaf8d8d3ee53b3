package io.github.ratelimit.spring;

import io.github.ratelimit.spring.web.servlet.ServletRequests;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code expr:} reads the request, and nothing else: it is evaluated in a {@code SimpleEvaluationContext}.
 */
class RequestKeyExpressionTests {

	private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "getHeader('X-Tenant')|ACME", "#request.getHeader('X-Tenant')|ACME",
			"getHeader('X-Tenant').toLowerCase()|acme", "remoteAddr|203.0.113.7",
			"method + ':' + getHeader('X-Tenant')|GET:ACME" })
	void readsTheRequestAsRootAndAsTheRequestVariable(String expression, String key) {
		assertThat(resolve(expression)).isEqualTo(key);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "T(java.lang.Runtime).getRuntime().availableProcessors()|type reference",
			"new java.lang.StringBuilder('x').toString()|constructor",
			"@rateLimitRegistry.toString()|bean reference", "getHeader(T(String).valueOf('X'))|type reference",
			"characterEncoding = 'UTF-16'|assignment" })
	void expressionsThatCanNeverBeEvaluatedFailAtStartUp(String expression, String what) {
		this.beanFactory.registerSingleton("rateLimitRegistry", new Object());
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RequestKeyResolvers.of("expr:" + expression, this.beanFactory, IpKeys.DEFAULT))
			.withMessageContaining("expr:" + expression)
			.withMessageContaining(what);
	}

	@ParameterizedTest
	@ValueSource(strings = { "getClass().getName()", "getClass().forName('java.lang.Runtime')",
			"getServletContext().getClass().getClassLoader()" })
	void reflectionThroughTheRequestFallsBackToTheClientIp(String expression) {
		assertThat(resolve(expression)).isEqualTo("ip:203.0.113.7");
	}

	private String resolve(String expression) {
		return RequestKeyResolvers.of("expr:" + expression, this.beanFactory, IpKeys.DEFAULT)
			.resolve(ServletRequests.of(request()));
	}

	private static MockHttpServletRequest request() {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/orders");
		request.setRemoteAddr("203.0.113.7");
		request.addHeader("X-Tenant", "ACME");
		return request;
	}

}
