package io.github.ratelimit.refresh;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Live configuration in a WebFlux application on Redis: a refresh applies new limits and policies to the web filter
 * and to reactive {@code @RateLimited} methods, each changed limit starting from fresh state.
 */
class LiveConfigurationWebFluxTests {

	@TempDir
	Path directory;

	@Test
	void refreshShouldApplyToTheWebFilterAndToReactiveRateLimitedMethods() {
		String paths = "ratelimit.policies.api.paths=/api/**";
		String key = "ratelimit.policies.api.key=header:X-Client";
		try (RefreshableApp app = RefreshableApp.startOnRedis(this.directory, WebApplicationType.REACTIVE,
				"ratelimit.policies.api.limits=3/1m", paths, key, "ratelimit.policies.calls.limits=2/1m")) {
			assertAdmitted(app, "/api/a", 3);
			assertAdmitted(app, "/reactive-calls", 2);
			app.reconfigure("ratelimit.policies.api.limits=5/1m", paths, key, "ratelimit.policies.calls.limits=4/1m",
					"ratelimit.policies.orders.limits=1/1m", "ratelimit.policies.orders.paths=/orders/**");
			assertAdmitted(app, "/api/a", 5);
			assertAdmitted(app, "/reactive-calls", 4);
			assertAdmitted(app, "/orders/1", 1);
			app.reconfigure("ratelimit.policies.api.limits=5/1m", paths, key, "ratelimit.policies.calls.limits=4/1m");
			for (int i = 0; i < 3; i++) {
				assertThat(app.get("/orders/1").statusCode()).isEqualTo(200);
			}
		}
	}

	private static void assertAdmitted(RefreshableApp app, String path, int admitted) {
		for (int i = 0; i < admitted; i++) {
			assertThat(app.get(path, "X-Client", "a").statusCode()).as("request %d", i + 1).isEqualTo(200);
		}
		assertThat(app.get(path, "X-Client", "a").statusCode()).isEqualTo(429);
	}

}
