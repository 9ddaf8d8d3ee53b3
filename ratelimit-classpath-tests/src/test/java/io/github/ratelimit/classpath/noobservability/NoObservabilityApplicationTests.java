package io.github.ratelimit.classpath.noobservability;

import java.net.http.HttpResponse;

import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.classpath.RunningApp;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in a JVM without Actuator, Boot's health and metrics modules, or Micrometer's meters (see this module's pom):
 * a servlet application limits on Redis, by its filter and by annotations.
 */
class NoObservabilityApplicationTests {

	@Test
	void classpathShouldLackActuatorAndMicrometer() {
		Classpath.assertAbsent("org.springframework.boot.actuate.endpoint.annotation.Endpoint",
				"org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint",
				"org.springframework.boot.health.contributor.HealthIndicator",
				"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
				"io.micrometer.core.instrument.MeterRegistry",
				"io.micrometer.prometheusmetrics.PrometheusMeterRegistry",
				"io.micrometer.jakarta9.instrument.jms.JmsInstrumentation",
				"io.prometheus.metrics.core.datapoints.DataPoint",
				"io.prometheus.metrics.model.registry.PrometheusRegistry",
				"io.prometheus.metrics.config.ExemplarsProperties", "io.prometheus.metrics.tracer.common.SpanContext",
				"io.prometheus.metrics.expositionformats.internal.PrometheusProtobufWriterImpl",
				"io.prometheus.metrics.expositionformats.ExpositionFormats", "org.HdrHistogram.Histogram",
				"org.LatencyUtils.LatencyStats", "redis.clients.jedis.Jedis");
		// Spring Framework's own dependency, which no Spring MVC application can leave out (see the pom)
		Classpath.assertPresent("io.micrometer.observation.ObservationRegistry");
		Classpath.assertPresent("io.lettuce.core.RedisClient", "jakarta.servlet.http.HttpServletRequest");
	}

	@Test
	void filterAndAnnotationShouldLimitOnRedis() {
		TestRedis redis = TestRedis.get();
		try (RunningApp app = RunningApp.start(NoObservabilityApplication.class,
				"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.limits=3/1h")) {
			assertThat(app.context().containsBean("rateLimitMetrics")).isFalse();
			assertThat(app.statuses("/hello", 3)).containsExactly(200, 200, 200);
			HttpResponse<String> refused = app.get("/hello");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).isPresent();
			assertThat(app.statuses("/report", 4)).containsExactly(200, 200, 200, 429);
			assertThat(app.get("/actuator/health").statusCode()).isEqualTo(404);
			StringRedisTemplate redisTemplate = app.context().getBean(StringRedisTemplate.class);
			assertThat(redisTemplate.keys("ratelimit:hello:*")).isNotEmpty();
			assertThat(redisTemplate.keys("ratelimit:HelloController.report:*")).isNotEmpty();
		}
	}

}
