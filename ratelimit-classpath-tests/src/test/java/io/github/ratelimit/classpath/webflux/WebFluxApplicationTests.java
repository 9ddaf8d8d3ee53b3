package io.github.ratelimit.classpath.webflux;

import java.util.List;

import io.github.ratelimit.classpath.AbstractReactiveApplicationTests;
import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.spring.RateLimitEnforcer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in a JVM without the Servlet API, Tomcat or Spring MVC, with WebFlux on Reactor Netty and Lettuce (see this
 * module's pom): a reactive application limits its requests on Redis through Lettuce's asynchronous API, without
 * blocking an event loop.
 */
class WebFluxApplicationTests extends AbstractReactiveApplicationTests {

	@Override
	protected Class<?> application() {
		return WebFluxApplication.class;
	}

	@Override
	protected List<String> scenarioProperties() {
		return List.of();
	}

	@Test
	void classpathShouldHaveWebFluxAndLettuceAndNoServletStack() {
		Classpath.assertServletStackAbsent();
		Classpath.assertAbsent("redis.clients.jedis.Jedis");
		Classpath.assertPresent("org.springframework.web.reactive.DispatcherHandler",
				"reactor.netty.http.server.HttpServer", "io.lettuce.core.RedisClient");
	}

	@Test
	void decisionsShouldGoThroughLettuceWithoutBlocking() {
		assertThat(app().context().getBean(RedisConnectionFactory.class)).isInstanceOf(LettuceConnectionFactory.class);
		assertThat(app().context().getBean(RateLimitEnforcer.class).blocking()).isFalse();
	}

}
