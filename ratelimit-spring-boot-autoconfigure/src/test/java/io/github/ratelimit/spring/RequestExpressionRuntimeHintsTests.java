package io.github.ratelimit.spring;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the request and principal types SpEL reads in {@code expr:} and {@code @RateLimited} expressions are
 * registered for reflection when present, and skipped when not.
 */
class RequestExpressionRuntimeHintsTests {

	private static final String JETTY_REQUEST = "org.eclipse.jetty.ee11.servlet.ServletApiRequest";

	private final RuntimeHints hints = new RuntimeHints();

	RequestExpressionRuntimeHintsTests() {
		new RequestExpressionRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void registersThePublicMethodsOfTheRequestsOfTomcatReactorNettyAndSpringSecurity() {
		for (String type : new String[] { "jakarta.servlet.http.HttpServletRequest",
				"org.apache.catalina.connector.RequestFacade",
				"org.springframework.security.web.servletapi.SecurityContextHolderAwareRequestWrapper",
				"org.springframework.http.server.reactive.ServerHttpRequest",
				"org.springframework.http.server.reactive.ReactorServerHttpRequest",
				"org.springframework.http.server.reactive.DefaultServerHttpRequestBuilder$MutatedServerHttpRequest",
				"org.springframework.http.HttpHeaders", "java.security.Principal",
				"org.springframework.security.authentication.UsernamePasswordAuthenticationToken" }) {
			assertThat(RuntimeHintsPredicates.reflection()
				.onType(TypeReference.of(type))
				.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).as(type).accepts(this.hints);
		}
	}

	@Test
	void skipsTheTypesOfAServerThatIsNotThere() {
		assertThat(ClassUtils.isPresent(JETTY_REQUEST, null)).isFalse();
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(JETTY_REQUEST))).rejects(this.hints);
	}

	@Test
	void namesOnlyTypesThatExist() {
		// Jetty is not on this module's test class path; every other name would fail here if it were misspelt
		assertThat(RequestExpressionRuntimeHints.TYPES).filteredOn((type) -> !type.equals(JETTY_REQUEST))
			.allSatisfy((type) -> assertThat(ClassUtils.isPresent(type, getClass().getClassLoader())).as(type).isTrue());
	}

}
