package io.github.ratelimit.classpath.webfluxjedis;

import java.util.List;

import io.github.ratelimit.classpath.AbstractReactiveApplicationTests;
import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.spring.RateLimitEnforcer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in a JVM without the Servlet API, Tomcat, Spring MVC or Lettuce, with WebFlux on Reactor Netty and Jedis (see
 * this module's pom): a reactive application limits its requests on Redis through Jedis' blocking connections, which
 * it calls off the event loops (BlockHound would fail the requests otherwise).
 */
class WebFluxJedisApplicationTests extends AbstractReactiveApplicationTests {

	@Override
	protected Class<?> application() {
		return WebFluxJedisApplication.class;
	}

	@Override
	protected List<String> scenarioProperties() {
		return List.of("spring.data.redis.client-type=jedis");
	}

	@Test
	void classpathShouldHaveWebFluxAndJedisAndNoServletStackOrLettuce() {
		Classpath.assertServletStackAbsent();
		Classpath.assertAbsent("io.lettuce.core.RedisClient");
		Classpath.assertPresent("org.springframework.web.reactive.DispatcherHandler",
				"reactor.netty.http.server.HttpServer", "redis.clients.jedis.Jedis");
	}

	@Test
	void decisionsShouldGoThroughJedisOffTheEventLoops() {
		assertThat(app().context().getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
		assertThat(app().context().getBean(RateLimitEnforcer.class).blocking()).isTrue();
	}

}
