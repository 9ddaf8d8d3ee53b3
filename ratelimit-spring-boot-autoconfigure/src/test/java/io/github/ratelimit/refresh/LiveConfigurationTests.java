package io.github.ratelimit.refresh;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.test.StartedWindow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindException;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Live configuration in a servlet application: Spring Cloud's refresh applies new {@code ratelimit.policies.*} to the
 * filter and to {@code @RateLimited} without a restart, and rejects an invalid configuration, logging the property,
 * while the running policies stay.
 */
@ExtendWith(OutputCaptureExtension.class)
class LiveConfigurationTests {

	private static final String[] STARTUP = { "ratelimit.policies.api.limits=3/1m", "ratelimit.policies.api.paths=/api/**",
			"ratelimit.policies.api.key=header:X-Client", "ratelimit.policies.calls.limits=2/1m" };

	@TempDir
	Path directory;

	private RefreshableApp app;

	@BeforeEach
	void start() {
		this.app = RefreshableApp.start(this.directory, WebApplicationType.SERVLET, STARTUP);
	}

	@AfterEach
	void stop() {
		this.app.close();
	}

	@Test
	void refreshShouldApplyNewLimitsNewPoliciesAndRemovals(CapturedOutput output) {
		assertAdmitted("/api/a", "a", 3);
		assertThat(this.app.reconfigure("ratelimit.policies.api.limits=5/1m", "ratelimit.policies.api.paths=/api/**",
				"ratelimit.policies.api.key=header:X-Client", "ratelimit.policies.calls.limits=2/1m",
				"ratelimit.policies.orders.limits=1/1m", "ratelimit.policies.orders.paths=/orders/**"))
			.contains("ratelimit.policies.api.limits", "ratelimit.policies.orders.limits");
		assertThat(output).contains("Rate limit configuration refreshed: added orders (1/1m")
			.contains("changed api (5/1m");
		assertAdmitted("/api/a", "a", 5);
		assertThat(this.app.get("/api/a", "X-Client", "a").headers().firstValue("RateLimit-Policy"))
			.hasValueSatisfying((policy) -> assertThat(policy).contains("q=5"));
		assertAdmitted("/orders/1", "a", 1);
		this.app.reconfigure(STARTUP);
		assertThat(output).contains("removed orders");
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> response = this.app.get("/orders/1");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("RateLimit-Policy")).isEmpty();
		}
	}

	@Test
	void refreshShouldAddPlansAndKeepTheStateOfUnchangedPolicies(CapturedOutput output) {
		for (int i = 0; i < 2; i++) {
			assertThat(this.app.get("/api/a", "X-Client", "kept").statusCode()).isEqualTo(200);
		}
		this.app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], STARTUP[3],
				"ratelimit.policies.plans.paths=/plans/**", "ratelimit.policies.plans.key=header:X-Client",
				"ratelimit.policies.plans.plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
				"ratelimit.policies.plans.default-plan=free", "ratelimit.policies.plans.plans.free.limits=1/1m",
				"ratelimit.policies.plans.plans.pro.limits=3/1m");
		assertThat(output).contains("added plans (plan expr:", "plans free (1/1m, token-bucket, default), pro (3/1m")
			.doesNotContain("changed api");
		assertAdmitted("/plans/1", "pro-a", 3);
		assertAdmitted("/plans/1", "b", 1);
		assertThat(this.app.get("/plans/1", "X-Client", "pro-a").headers().firstValue("RateLimit-Policy"))
			.hasValueSatisfying((policy) -> assertThat(policy).contains("plans-pro"));
		// the unchanged policy kept its clients' state: one request of three was left
		assertAdmitted("/api/a", "kept", 1);
	}

	@Test
	void refreshShouldApplyToRateLimitedMethods(CapturedOutput output) {
		assertCalls("/calls", 2);
		this.app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], "ratelimit.policies.calls.limits=4/1m",
				"ratelimit.policies.own.limits=1/1m");
		// configuration wins over an annotation's own limits, as at start-up
		assertCalls("/calls", 4);
		assertCalls("/own", 1);
		this.app.reconfigure(STARTUP);
		// the annotation's own limits apply again once configuration no longer names the policy
		assertCalls("/own", 2);
		assertThat(output).contains("removed own");
	}

	@Test
	void invalidConfigurationShouldBeRejectedNamingThePropertyAndTheRunningPoliciesStay(CapturedOutput output) {
		this.app.reconfigure("ratelimit.policies.api.limits=banana", STARTUP[1], STARTUP[2], STARTUP[3]);
		assertThat(output).contains("Rate limit configuration refresh rejected")
			.contains("'ratelimit.policies.api.limits[0]'");
		assertAdmitted("/api/a", "a", 3);
		this.app.reconfigure(STARTUP[0], STARTUP[1], "ratelimit.policies.api.key=bogus:x", STARTUP[3]);
		assertThat(output).contains("'ratelimit.policies.api.key'");
		assertAdmitted("/api/a", "b", 3);
		// Spring Cloud's rebinding refuses an unknown or unconvertible property too, leaving the properties bean
		// half bound (here with the new limits, then with no policies): the running policies stay all the same
		reconfigureIgnoringRebinding("ratelimit.policies.api.limits=10/1m", STARTUP[1], STARTUP[2], STARTUP[3],
				"ratelimit.policies.api.limitz=10/1m");
		assertThat(output).contains("'ratelimit.policies.api.limitz'");
		assertAdmitted("/api/a", "c", 3);
		reconfigureIgnoringRebinding("ratelimit.policies.api.limits=10/1m", STARTUP[1], STARTUP[2], STARTUP[3],
				"ratelimit.policies.api.algorithm=bogus");
		assertThat(output).contains("'ratelimit.policies.api.algorithm'");
		assertAdmitted("/api/a", "e", 3);
		// an annotation without limits needs its policy configured, as at start-up
		this.app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2]);
		assertThat(output).contains("No rate limit policy 'calls'");
		assertCalls("/calls", 2);
		this.app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], "ratelimit.policies.calls.limits=2/1m",
				"ratelimit.policies.api.limits=4/1m");
		assertAdmitted("/api/a", "d", 4);
	}

	@Test
	void settingsThatNeedARestartShouldBeLoggedAndNotApplied(CapturedOutput output) {
		this.app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], STARTUP[3], "ratelimit.headers=legacy");
		assertThat(output).contains("apply only at the next start: ratelimit.headers");
		assertThat(this.app.get("/api/a", "X-Client", "a").headers().firstValue("RateLimit-Policy")).isPresent();
		reconfigureIgnoringRebinding(STARTUP[0], STARTUP[1], STARTUP[2], STARTUP[3], "ratelimit.timout=1s");
		assertThat(output).contains("refresh rejected").contains("'ratelimit.timout'");
	}

	@Test
	void refreshThroughTheActuatorEndpointShouldApply() throws Exception {
		assertAdmitted("/api/a", "a", 3);
		this.app.write("ratelimit.policies.api.limits=6/1m", STARTUP[1], STARTUP[2], STARTUP[3]);
		HttpResponse<String> refreshed = this.app.post("/actuator/refresh");
		assertThat(refreshed.statusCode()).isEqualTo(200);
		assertThat(refreshed.body()).contains("ratelimit.policies.api.limits");
		assertAdmitted("/api/a", "a", 6);
	}

	@Test
	void requestsDuringRefreshesShouldEachBeDecidedByOneSetOfPolicies() throws Exception {
		String[] large = { "ratelimit.policies.api.limits=100000/1m", STARTUP[1], STARTUP[2], STARTUP[3] };
		String[] larger = { "ratelimit.policies.api.limits=200000/1m", STARTUP[1], STARTUP[2], STARTUP[3] };
		this.app.reconfigure(large);
		AtomicBoolean running = new AtomicBoolean(true);
		ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
		ExecutorService threads = Executors.newFixedThreadPool(4);
		List<Future<Integer>> clients = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			String client = "client-" + i;
			clients.add(threads.submit(() -> {
				int requests = 0;
				while (running.get()) {
					HttpResponse<String> response = this.app.get("/api/x", "X-Client", client);
					requests++;
					String limit = response.headers().firstValue("X-RateLimit-Limit").orElse("none");
					String policy = response.headers().firstValue("RateLimit-Policy").orElse("none");
					if (response.statusCode() != 200 || !(limit.equals("100000") || limit.equals("200000"))
							|| !policy.contains("q=" + limit + ";")) {
						wrong.add(response.statusCode() + " " + limit + " " + policy);
					}
				}
				return requests;
			}));
		}
		for (int i = 0; i < 10; i++) {
			this.app.reconfigure((i % 2 == 0) ? larger : large);
			Thread.sleep(50);
		}
		running.set(false);
		int requests = 0;
		for (Future<Integer> client : clients) {
			requests += client.get(60, TimeUnit.SECONDS);
		}
		threads.shutdown();
		assertThat(requests).isPositive();
		assertThat(wrong).isEmpty();
	}

	@Test
	void refreshShouldGiveBackTheLeasesOfReplacedLimitersAndRejectALeaseTheAlgorithmCannotHave(CapturedOutput output) {
		// a window begun at the test, in which every request here is decided
		Limit window = StartedWindow.begunAt(RedisTime.testRedisMicros(), "10/1h");
		String[] leased = { "ratelimit.policies.api.limits=" + window, STARTUP[1], STARTUP[2],
				"ratelimit.policies.api.algorithm=fixed-window", "ratelimit.policies.api.lease.enabled=true",
				"ratelimit.policies.api.lease.batch=5", "ratelimit.policies.api.lease.adaptive=false",
				"ratelimit.policies.api.lease.max-age=1h", STARTUP[3] };
		this.app.reconfigure(leased);
		assertThat(output).contains("changed api (" + window + ", fixed-window, leased (batch 5, max-age 1h)");
		assertThat(this.app.get("/api/a", "X-Client", "a").statusCode()).isEqualTo(200);
		// a refresh builds every policy's limiter afresh: the replaced one gives its 4 unused permits back (its lease
		// would otherwise hold them for an hour)
		String[] more = Arrays.copyOf(leased, leased.length + 2);
		more[leased.length] = "ratelimit.policies.orders.limits=1/1m";
		more[leased.length + 1] = "ratelimit.policies.orders.paths=/orders/**";
		this.app.reconfigure(more);
		assertThat(output).contains("Rate limit configuration refreshed: added orders");
		assertAdmitted("/api/a", "a", 9);
		this.app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], "ratelimit.policies.api.algorithm=sliding-window",
				"ratelimit.policies.api.lease.enabled=true", STARTUP[3]);
		assertThat(output).contains("Rate limit configuration refresh rejected")
			.contains("'ratelimit.policies.api.lease.enabled'");
		assertAdmitted("/api/a", "b", 10);
	}

	/** A refresh that Spring Cloud's rebinding of the properties bean fails, after this starter has logged why. */
	private void reconfigureIgnoringRebinding(String... configuration) {
		assertThatExceptionOfType(ConfigurationPropertiesBindException.class)
			.isThrownBy(() -> this.app.reconfigure(configuration));
	}

	private void assertAdmitted(String path, String client, int admitted) {
		for (int i = 0; i < admitted; i++) {
			assertThat(this.app.get(path, "X-Client", client).statusCode()).as("request %d of %s", i + 1, client)
				.isEqualTo(200);
		}
		assertThat(this.app.get(path, "X-Client", client).statusCode()).isEqualTo(429);
	}

	private void assertCalls(String path, int admitted) {
		assertAdmitted(path, "any", admitted);
	}

}
