package io.github.ratelimit.operations;

import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint;
import io.github.ratelimit.test.HttpProbe;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Operators' per-client overrides through the {@code ratelimits} endpoint of an application on a real Redis: set,
 * reported, applied to requests, removed, validated, and every change logged with who made it; a client's key that
 * may be a secret (policies {@code hello}, {@code apikey}, {@code keyed}) only ever in its hashed form. Each test
 * uses clients of its own.
 */
@SpringBootTest(classes = OperationsTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.policies.hello.limits=3/1h", "ratelimit.policies.hello.paths=/hello",
				"ratelimit.policies.hello.key=header:X-Client", "ratelimit.policies.byip.limits=3/1h", "ratelimit.policies.byip.paths=/byip",
				"ratelimit.policies.log.algorithm=sliding-log", "ratelimit.policies.log.limits=5/1h", "ratelimit.policies.log.paths=/log",
				"ratelimit.policies.costly.limits=10/1h", "ratelimit.policies.costly.cost=5", "ratelimit.policies.costly.paths=/costly",
				"ratelimit.policies.orders.plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
				"ratelimit.policies.orders.default-plan=free", "ratelimit.policies.orders.paths=/orders", "ratelimit.policies.orders.plans.free.limits=2/1h",
				"ratelimit.policies.orders.plans.pro.limits=5/1h",
				"ratelimit.policies.orders.plans.pro.algorithm=sliding-log",
				"ratelimit.policies.apikey.key=header:X-Api-Key", "ratelimit.policies.apikey.limits=3/1h",
				"ratelimit.policies.apikey.paths=/keyed", "ratelimit.policies.keyed.key=header:X-Api-Key",
				"ratelimit.policies.keyed.limits=100/1h", "ratelimit.policies.keyed.lease.enabled=true",
				"ratelimit.policies.tenant.key=header:X-Tenant", "ratelimit.policies.tenant.hash-keys=false",
				"ratelimit.policies.tenant.limits=3/1h", "ratelimit.policies.tenant.paths=/annotated",
				"logging.level.io.github.ratelimit=trace",
				"management.endpoints.web.exposure.include=ratelimits",
				"management.endpoint.ratelimits.access=unrestricted" })
@ExtendWith(OutputCaptureExtension.class)
class OverridesEndpointTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private RateLimitsEndpoint endpoint;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Test
	void anOverrideIsSetReportedAppliedAndRemoved() {
		HttpProbe http = http();
		String client = newClient();
		HttpResponse<String> set = http.post("/actuator/ratelimits/hello/" + client + "/override",
				"{\"limits\": \"5/1h\"}");
		assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
		JsonNode state = body(set);
		assertThat(state.get("capacity").asLong()).isEqualTo(5);
		assertThat(state.get("remaining").asLong()).isEqualTo(5);
		assertThat(state.get("override").get("limits").get(0).asString()).isEqualTo("5/1h");
		assertThat(state.get("override").get("setBy").asString()).isEqualTo("anonymous");
		assertThat(state.get("override").get("expiresAt").isNull()).isTrue();

		HttpResponse<String> request = http.get("/hello", "X-Client", client);
		assertThat(request.statusCode()).isEqualTo(200);
		assertThat(request.headers().firstValue("X-RateLimit-Limit")).hasValue("5");
		assertThat(request.headers().firstValue("X-RateLimit-Remaining")).hasValue("4");
		assertThat(body(http.get("/actuator/ratelimits/hello/" + client)).get("remaining").asLong()).isEqualTo(4);

		assertThat(body(http.get("/actuator/ratelimits")).get("policies").get("hello").get("overrides").asInt())
			.isPositive();
		JsonNode listed = body(http.get("/actuator/ratelimits/hello"));
		assertThat(listed.get("report").get("limits").get(0).asString()).isEqualTo("3/1h");
		JsonNode override = overrideOf(listed, StorageKeys.hashed(client));
		assertThat(override.get("limits").get(0).asString()).isEqualTo("5/1h");
		assertThat(override.get("setBy").asString()).isEqualTo("anonymous");
		assertThat(override.get("setAt").asString()).isNotBlank();

		HttpResponse<String> removed = http.delete("/actuator/ratelimits/hello/" + client + "/override");
		assertThat(removed.statusCode()).isEqualTo(200);
		assertThat(body(removed).get("override").isNull()).isTrue();
		assertThat(body(removed).get("capacity").asLong()).isEqualTo(3);
		assertThat(overrideOf(body(http.get("/actuator/ratelimits/hello")), StorageKeys.hashed(client))).isNull();
		assertThat(http.get("/hello", "X-Client", client).headers().firstValue("X-RateLimit-Limit")).hasValue("3");
	}

	@Test
	void anOverrideWithAnExpiryReportsWhenItEnds() {
		String client = newClient();
		JsonNode state = body(http().post("/actuator/ratelimits/hello/" + client + "/override",
				"{\"limits\": \"5/1h, 50/1d\", \"expiresIn\": \"1h\"}"));
		JsonNode override = state.get("override");
		assertThat(override.get("limits").toString()).isEqualTo("[\"5/1h\",\"50/1d\"]");
		assertThat(java.time.Instant.parse(override.get("expiresAt").asString()))
			.isEqualTo(java.time.Instant.parse(override.get("setAt").asString()).plusSeconds(3600));
	}

	@Test
	void aClientCountedByAddressIsNamedByAnyOfItsAddresses() {
		HttpProbe http = http();
		String prefix = "2001:db8:" + Integer.toHexString(UUID.randomUUID().hashCode() & 0xffff) + ":2::";
		HttpResponse<String> set = http.post("/actuator/ratelimits/byip/" + prefix + "7/override",
				"{\"limits\": \"9/1h\"}");
		assertThat(body(set).get("key").asString()).isEqualTo(prefix + "/64");
		assertThat(body(http.get("/actuator/ratelimits/byip/" + prefix + "/64")).get("capacity").asLong())
			.isEqualTo(9);
		assertThat(body(http.delete("/actuator/ratelimits/byip/" + prefix + "9/override")).get("capacity").asLong())
			.isEqualTo(3);
	}

	@Test
	void plansAreReportedAndAnOverrideReplacesAClientsPlan() {
		HttpProbe http = http();
		JsonNode orders = body(http.get("/actuator/ratelimits")).get("policies").get("orders");
		assertThat(orders.get("defaultPlan").asString()).isEqualTo("free");
		assertThat(orders.get("plans").get("free").get("limits").get(0).asString()).isEqualTo("2/1h");
		assertThat(orders.get("plans").get("free").get("algorithm").asString()).isEqualTo("token-bucket");
		assertThat(orders.get("plans").get("pro").get("limits").get(0).asString()).isEqualTo("5/1h");
		assertThat(orders.get("plans").get("pro").get("algorithm").asString()).isEqualTo("sliding-log");
		assertThat(orders.get("plans").get("pro").get("cost").asLong()).isEqualTo(1);

		String pro = "pro-" + UUID.randomUUID();
		JsonNode state = body(http.get("/actuator/ratelimits/orders/" + pro));
		assertThat(state.get("plan").asString()).isEqualTo("pro");
		assertThat(state.get("capacity").asLong()).isEqualTo(5);
		assertThat(body(http.get("/actuator/ratelimits/orders/" + newClient())).get("plan").asString())
			.isEqualTo("free");

		JsonNode overridden = body(http.post("/actuator/ratelimits/orders/" + pro + "/override",
				"{\"limits\": \"20/1h\"}"));
		assertThat(overridden.get("plan").asString()).isEqualTo("pro");
		assertThat(overridden.get("capacity").asLong()).isEqualTo(20);
		assertThat(overridden.get("override").get("limits").get(0).asString()).isEqualTo("20/1h");
	}

	@Test
	void invalidRequestsAreRefusedNamingWhatIsWrong() {
		String client = newClient();
		assertRefused(404, "/nope/" + client + "/override", "{\"limits\": \"5/1h\"}", "No rate limit policy 'nope'");
		assertRefused(400, "/hello/" + client + "/other", "{\"limits\": \"5/1h\"}", "/override");
		assertRefused(400, "/hello/" + client + "/override", "{}", "'limits' is required");
		assertRefused(400, "/hello/" + client + "/override", "{\"limits\": \"\"}", "'limits' is required");
		assertRefused(400, "/hello/" + client + "/override", "{\"limits\": \"lots\"}", "'lots'");
		assertRefused(400, "/hello/" + client + "/override", "{\"limits\": \"0/1m\"}", "'0/1m'");
		assertRefused(400, "/hello/" + client + "/override", "{\"limits\": \"5/1h\", \"expiresIn\": \"-1s\"}",
				"'expiresIn' must be positive");
		assertRefused(400, "/hello/" + client + "/override", "{\"limits\": \"5/1h\", \"expiresIn\": \"soon\"}",
				"'expiresIn' is 'soon'");
		assertRefused(400, "/hello/" + client + "/override",
				"{\"limits\": \"5/1h\", \"expiresIn\": \"1000000000000d\"}", "'expiresIn' must be at most 1000d");
		assertRefused(400, "/hello/" + client + "/override", "{\"limits\": \"5/1h\", \"expiresIn\": \"1001d\"}",
				"'expiresIn' must be at most 1000d");
		assertRefused(400, "/hello/" + client + "/override",
				"{\"limits\": \"5/1h\", \"expiresIn\": \"99999999999999999999d\"}", "'expiresIn' is");
		assertRefused(400, "/log/" + client + "/override", "{\"limits\": \"1000/1m\"}",
				"sliding-log algorithm of policy 'log'");
		assertRefused(400, "/orders/pro-" + client + "/override", "{\"limits\": \"1000/1m\"}",
				"sliding-log algorithm of plan 'pro' of policy 'orders'");
		assertRefused(400, "/costly/" + client + "/override", "{\"limits\": \"4/1m\"}",
				"below the cost of a request of policy 'costly' (5)");
		assertThat(overrideOf(body(http().get("/actuator/ratelimits/hello")), StorageKeys.hashed(client))).isNull();
	}

	@Test
	void everyChangeIsLoggedWithWhoMadeIt(CapturedOutput output) {
		String client = newClient();
		String hashed = StorageKeys.hashed(client);
		http().post("/actuator/ratelimits/hello/" + client + "/override",
				"{\"limits\": \"7/1h\", \"expiresIn\": \"90m\"}");
		assertThat(output).contains("Rate limit override set by anonymous: policy 'hello', key '" + hashed
				+ "', limits [7/1h], expires at ").contains("(in PT1H30M)");

		this.endpoint.setOverride("hello", new String[] { client, "override" }, List.of("8/1h"), null,
				operator("alice"));
		assertThat(output).contains("Rate limit override set by alice: policy 'hello', key '" + hashed
				+ "', limits [8/1h], no expiry");
		this.endpoint.delete("hello", new String[] { client, "override" }, operator("bob"));
		assertThat(output).contains("Rate limit override removed by bob: policy 'hello', key '" + hashed
				+ "', was limits [8/1h]");
		assertThat(output).doesNotContain(client);
	}

	/**
	 * A secret API key, sent by a client of a filter's policy and of a leased {@code @RateLimited} one until refused,
	 * then given an override, read, reset and freed of it through the endpoint, is found in no Redis key (nor in the
	 * overrides' hash), in no log line at any level the starter logs, and in no answer of the endpoint; the override
	 * still applies to the client's requests, and the operator names the client by its key throughout.
	 */
	@Test
	void aSecretKeyIsNeverStoredLoggedOrShown(CapturedOutput output) {
		HttpProbe http = http();
		String secret = "sk_live_" + UUID.randomUUID().toString().replace("-", "");
		String hashed = StorageKeys.hashed(secret);
		List<String> answers = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			answers.add(http.get("/keyed", "X-Api-Key", secret).body());
		}
		assertThat(http.get("/keyed", "X-Api-Key", secret).statusCode()).as("refused, remembered").isEqualTo(429);

		HttpResponse<String> set = http.post("/actuator/ratelimits/apikey/" + secret + "/override",
				"{\"limits\": \"10/1h\"}");
		assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
		assertThat(body(set).get("key").asString()).isEqualTo(hashed);
		HttpResponse<String> overridden = http.get("/keyed", "X-Api-Key", secret);
		assertThat(overridden.statusCode()).isEqualTo(200);
		assertThat(overridden.headers().firstValue("X-RateLimit-Limit")).hasValue("10");
		List<String> stored = redisKeysAndHashes();
		assertThat(stored).as("Redis").anyMatch((text) -> text.contains("apikey") && text.contains(hashed))
			.anyMatch((text) -> text.contains("keyed") && text.contains(hashed))
			.anyMatch((text) -> text.contains("apikey" + hashed));
		HttpResponse<String> listed = http.get("/actuator/ratelimits/apikey");
		assertThat(overrideOf(body(listed), hashed)).isNotNull();
		assertThat(body(listed).get("report").get("hashKeys").asBoolean()).isTrue();
		answers.add(set.body());
		answers.add(listed.body());
		answers.add(http.get("/actuator/ratelimits").body());
		answers.add(http.get("/actuator/ratelimits/apikey/" + secret).body());
		answers.add(http.get("/actuator/ratelimits/keyed/" + secret).body());
		answers.add(http.get("/actuator/ratelimits/keyed").body());
		answers.add(http.delete("/actuator/ratelimits/keyed/" + secret).body());
		HttpResponse<String> reset = http.delete("/actuator/ratelimits/apikey/" + secret);
		assertThat(body(reset).get("remaining").asLong()).isEqualTo(10);
		answers.add(reset.body());
		answers.add(http.delete("/actuator/ratelimits/apikey/" + secret + "/override").body());

		stored.addAll(redisKeysAndHashes());
		assertThat(stored).as("Redis").noneMatch((text) -> text.contains(secret));
		assertThat(output.getAll()).as("logs").contains(hashed).doesNotContain(secret);
		assertThat(answers).as("endpoint").noneMatch((answer) -> answer.contains(secret));
	}

	@Test
	void aPolicyThatOptsOutKeepsAndShowsKeysAsTheyAre() {
		HttpProbe http = http();
		String tenant = newClient();
		assertThat(http.get("/annotated", "X-Tenant", tenant).statusCode()).isEqualTo(200);
		JsonNode state = body(http.get("/actuator/ratelimits/tenant/" + tenant));
		assertThat(state.get("key").asString()).isEqualTo(tenant);
		assertThat(state.get("remaining").asLong()).isEqualTo(2);
		assertThat(body(http.get("/actuator/ratelimits")).get("policies").get("tenant").get("hashKeys").asBoolean())
			.isFalse();
		assertThat(redisKeysAndHashes()).anyMatch((text) -> text.contains("{" + tenant + "}"));
	}

	/** Every key name in Redis, and every field and value of every hash (the overrides' among them). */
	private List<String> redisKeysAndHashes() {
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		List<String> texts = new ArrayList<>();
		for (String key : redis.keys("*")) {
			texts.add(key);
			if (redis.type(key) == DataType.HASH) {
				redis.opsForHash().entries(key).forEach((field, value) -> texts.add(field + "=" + value));
			}
		}
		return texts;
	}

	private void assertRefused(int status, String path, String body, String reason) {
		HttpResponse<String> response = http().post("/actuator/ratelimits" + path, body);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		assertThat(body(response).get("error").asString()).contains(reason);
	}

	private static SecurityContext operator(String name) {
		Principal principal = () -> name;
		return new SecurityContext() {

			@Override
			public Principal getPrincipal() {
				return principal;
			}

			@Override
			public boolean isUserInRole(String role) {
				return false;
			}

		};
	}

	private static JsonNode overrideOf(JsonNode policy, String client) {
		for (JsonNode override : policy.get("overrides")) {
			if (override.get("key").asString().equals(client)) {
				return override;
			}
		}
		return null;
	}

	private HttpProbe http() {
		return new HttpProbe(this.port);
	}

	private static String newClient() {
		return "client-" + UUID.randomUUID();
	}

	private static JsonNode body(HttpResponse<String> response) {
		return json.readTree(response.body());
	}

}
