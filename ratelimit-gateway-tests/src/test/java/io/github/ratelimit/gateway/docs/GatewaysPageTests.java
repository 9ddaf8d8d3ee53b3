package io.github.ratelimit.gateway.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway configurations of {@code docs/gateways.md}, which the documentation test of the auto-configuration
 * module cannot start (it runs without the gateway, so they are marked {@code yaml: not application.yml}): each is
 * started as a WebFlux gateway's {@code application.yml}, on the test Redis, and its routes are built.
 */
class GatewaysPageTests {

	private static final Path PAGE = Path.of("..", "docs", "gateways.md");

	private static final Pattern GATEWAY_BLOCK = Pattern
		.compile("<!-- yaml: not application\\.yml -->\\n```yaml\\n(spring:\\n  cloud:\\n    gateway:.*?)```",
				Pattern.DOTALL);

	@TempDir
	private Path directory;

	@Test
	void everyGatewayConfigurationOfThePageStartsAndBuildsItsRoutes() throws IOException {
		List<String> blocks = new ArrayList<>();
		Matcher matcher = GATEWAY_BLOCK.matcher(Files.readString(PAGE));
		while (matcher.find()) {
			blocks.add(matcher.group(1));
		}
		assertThat(blocks).hasSize(2);
		for (int i = 0; i < blocks.size(); i++) {
			Path configuration = this.directory.resolve("block-" + i + ".yml");
			Files.writeString(configuration, blocks.get(i));
			try (ConfigurableApplicationContext gateway = new SpringApplicationBuilder(DocumentedGateway.class).run(
					"--spring.config.location=file:" + configuration, "--server.port=0",
					"--spring.main.web-application-type=reactive", "--spring.data.redis.host=" + TestRedis.get().host(),
					"--spring.data.redis.port=" + TestRedis.get().port())) {
				List<String> routes = gateway.getBean(RouteLocator.class)
					.getRoutes()
					.map(Route::getId)
					.collectList()
					.block(Duration.ofSeconds(30));
				assertThat(routes).as("routes of block %s", i)
					.hasSize(blocks.get(i).split("- id: ", -1).length - 1);
			}
		}
	}

	/** A gateway with the beans the page's configurations name. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class DocumentedGateway {

		@Bean
		KeyResolver apiKeyResolver() {
			return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
		}

	}

}
