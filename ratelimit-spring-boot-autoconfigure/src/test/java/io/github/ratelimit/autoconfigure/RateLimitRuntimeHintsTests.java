package io.github.ratelimit.autoconfigure;

import java.util.List;

import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.ClientState;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.RateLimitsReport;
import io.github.ratelimit.spring.annotation.RateLimited;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests the runtime hints AOT processing takes from {@code META-INF/spring/aot.factories} for a native image: property
 * binding, {@code @RateLimited}, the endpoint's answers and the Lua scripts.
 */
class RateLimitRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	RateLimitRuntimeHintsTests() {
		for (RuntimeHintsRegistrar registrar : SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)) {
			registrar.registerHints(this.hints, getClass().getClassLoader());
		}
	}

	@Test
	void propertiesBindIncludingNestedPolicies() throws Exception {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitProperties.class, "setKeyPrefix"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(RateLimitProperties.PolicyProperties.class.getMethod("setLimits", List.class)))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(RateLimitProperties.DenyCacheProperties.class)).accepts(this.hints);
	}

	@Test
	void rateLimitedAttributesAreReadable() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimited.class, "key")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimited.List.class, "value"))
			.accepts(this.hints);
	}

	@Test
	void rateLimitedMethodsOfBeansAreRegisteredByAotProcessing() {
		RuntimeHints beanHints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(beanHints, Orders.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Orders.class, "place")).accepts(beanHints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Orders.class, "export")).accepts(beanHints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Orders.class, "unlimited"))
			.rejects(beanHints);
	}

	@Test
	void endpointAnswersAreWritable() {
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(ClientState.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ClientState.class, "remaining"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitsReport.class, "policies"))
			.accepts(this.hints);
	}

	@Test
	void luaScriptsAreKept() {
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/ratelimit/redis/token-bucket.lua"))
			.accepts(this.hints);
	}

	static class Orders {

		@RateLimited(limits = "10/1m", key = "#customer")
		public String place(String customer) {
			return customer;
		}

		@RateLimited(name = "exports", limits = "5/1h")
		@RateLimited(name = "exports-daily", limits = "20/1d")
		public String export() {
			return "";
		}

		public String unlimited() {
			return "";
		}

	}

}
