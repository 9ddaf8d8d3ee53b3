package io.github.ratelimit.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.override.ClientOverride;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The behaviour of {@link RedisClientOverrides} on a real Redis, as two instances sharing it would see it: each
 * test under a key prefix of its own. Subclasses give the Redis (standalone, Cluster).
 */
abstract class AbstractRedisClientOverridesTests {

	/** Generous: a loaded build machine polls late, never this late. */
	static final Duration PATIENCE = Duration.ofSeconds(10);

	static final Duration POLL = Duration.ofMillis(100);

	private final List<RedisClientOverrides> started = new CopyOnWriteArrayList<>();

	private final String prefix = "overrides-" + UUID.randomUUID();

	protected abstract RedisConnectionFactory connectionFactory();

	@AfterEach
	void stopInstances() {
		this.started.forEach(RedisClientOverrides::close);
	}

	RedisClientOverrides instance(Duration refreshInterval, int maximum) {
		RedisClientOverrides overrides = new RedisClientOverrides(connectionFactory(), this.prefix, refreshInterval,
				maximum);
		overrides.start(PATIENCE);
		this.started.add(overrides);
		return overrides;
	}

	StringRedisTemplate redis() {
		return new StringRedisTemplate(connectionFactory());
	}

	@Test
	void setListAndRemoveAreSeenAtOnceByTheWriter() {
		RedisClientOverrides overrides = instance(Duration.ofHours(1), 10);
		ClientOverride set = overrides.set("orders", "acme", List.of(Limit.parse("1000/1m"), Limit.parse("5000/1h")),
				null, "alice");
		assertThat(set.limits()).containsExactly(Limit.parse("1000/1m"), Limit.parse("5000/1h"));
		assertThat(set.setBy()).isEqualTo("alice");
		assertThat(set.expiresAt()).isNull();
		assertThat(overrides.find("orders", "acme")).isEqualTo(set);
		assertThat(overrides.find("orders", "other")).isNull();
		assertThat(overrides.find("hello", "acme")).isNull();
		assertThat(overrides.list("orders")).containsExactly(set);
		assertThat(overrides.list("hello")).isEmpty();

		assertThat(overrides.remove("orders", "acme")).isEqualTo(set);
		assertThat(overrides.find("orders", "acme")).isNull();
		assertThat(overrides.list("orders")).isEmpty();
		assertThat(overrides.remove("orders", "acme")).isNull();
	}

	@Test
	void policiesAndKeysNeverRunIntoOneAnother() {
		RedisClientOverrides overrides = instance(Duration.ofHours(1), 10);
		overrides.set("a", "b:c", List.of(Limit.parse("1/1m")), null, "alice");
		overrides.set("a:b", "c", List.of(Limit.parse("2/1m")), null, "alice");
		overrides.set("a", "{b}|c,1/1m|0", List.of(Limit.parse("3/1m")), null, "a|b");
		assertThat(overrides.find("a", "b:c").limits()).containsExactly(Limit.parse("1/1m"));
		assertThat(overrides.find("a:b", "c").limits()).containsExactly(Limit.parse("2/1m"));
		ClientOverride odd = instance(Duration.ofHours(1), 10).find("a", "{b}|c,1/1m|0");
		assertThat(odd.limits()).containsExactly(Limit.parse("3/1m"));
		assertThat(odd.setBy()).isEqualTo("a|b");
	}

	@Test
	void anotherInstanceAppliesAChangeAtItsNextPollAndIsToldOfIt() {
		RedisClientOverrides writer = instance(Duration.ofHours(1), 10);
		RedisClientOverrides reader = instance(POLL, 10);
		List<String> changes = new CopyOnWriteArrayList<>();
		reader.onChange((policy, key) -> changes.add(policy + "/" + key));

		ClientOverride set = writer.set("orders", "acme", List.of(Limit.parse("1000/1m")), null, "alice");
		await("the reader finds the override", () -> set.equals(reader.find("orders", "acme")));
		// listeners are told after the copy is swapped, on the polling thread
		await("the reader was told", () -> !changes.isEmpty());
		assertThat(changes).containsExactly("orders/acme");

		writer.set("orders", "acme", List.of(Limit.parse("2000/1m")), null, "bob");
		await("the reader finds the new limits", () -> reader.find("orders", "acme").setBy().equals("bob"));
		writer.remove("orders", "acme");
		await("the reader finds none", () -> reader.find("orders", "acme") == null);
		await("the reader was told of all three", () -> changes.size() >= 3);
		assertThat(changes).containsExactly("orders/acme", "orders/acme", "orders/acme");
	}

	/**
	 * Instances read the whole hash only when its version changed: an entry written behind the store's back, without
	 * a new version, is not read; once the version changes, it is, and one that cannot be read is skipped while the
	 * others apply.
	 */
	@Test
	void theHashIsReadOnlyWhenItsVersionChangedAndAnEntryThatCannotBeReadIsSkipped() throws InterruptedException {
		RedisClientOverrides writer = instance(Duration.ofHours(1), 10);
		RedisClientOverrides reader = instance(POLL, 10);
		writer.set("orders", "first", List.of(Limit.parse("10/1m")), null, "alice");
		await("the reader finds the first override", () -> reader.find("orders", "first") != null);

		redis().opsForHash().put(writer.key(), RedisClientOverrides.field("orders", "quiet"), "7/1m|0|1|mallory");
		redis().opsForHash().put(writer.key(), RedisClientOverrides.field("orders", "broken"), "not an override");
		redis().opsForHash().put(writer.key(), "garbage", "7/1m|0|1|mallory");
		Thread.sleep(POLL.multipliedBy(5).toMillis());
		assertThat(reader.find("orders", "quiet")).as("read without a new version").isNull();

		writer.set("orders", "second", List.of(Limit.parse("20/1m")), null, "alice");
		await("the reader finds the second override", () -> reader.find("orders", "second") != null);
		assertThat(reader.find("orders", "quiet").limits()).containsExactly(Limit.parse("7/1m"));
		assertThat(reader.find("orders", "broken")).isNull();
		assertThat(reader.list("orders")).extracting(ClientOverride::key).containsExactly("first", "quiet", "second");
	}

	@Test
	void anOverrideExpiresOnRedisClockAtEveryInstance() {
		RedisClientOverrides writer = instance(Duration.ofHours(1), 10);
		RedisClientOverrides reader = instance(POLL, 10);
		List<String> changes = new CopyOnWriteArrayList<>();
		reader.onChange((policy, key) -> changes.add(policy + "/" + key));
		long before = RedisTime.micros(redis()) / 1000;
		ClientOverride set = writer.set("orders", "acme", List.of(Limit.parse("1000/1m")), Duration.ofMillis(1500),
				"alice");
		long after = RedisTime.micros(redis()) / 1000;
		assertThat(set.setAt().toEpochMilli()).as("set at, on Redis' clock").isBetween(before, after);
		assertThat(set.expiresAt()).isEqualTo(set.setAt().plusMillis(1500));
		await("the reader finds the override", () -> reader.find("orders", "acme") != null);

		await("the override expires", () -> writer.find("orders", "acme") == null
				&& reader.find("orders", "acme") == null);
		assertThat(RedisTime.micros(redis()) / 1000).as("Redis' clock when it was gone")
			.isGreaterThanOrEqualTo(set.expiresAt().toEpochMilli());
		assertThat(writer.list("orders")).isEmpty();
		await("the reader was told", () -> changes.size() == 2);
		assertThat(writer.remove("orders", "acme")).as("an expired override is not removed, it is gone").isNull();
	}

	@Test
	void aNewOverrideBeyondTheMaximumIsRefusedWhileReplacingOneIsNot() {
		RedisClientOverrides overrides = instance(Duration.ofHours(1), 2);
		overrides.set("orders", "a", List.of(Limit.parse("10/1m")), null, "alice");
		ClientOverride b = overrides.set("hello", "b", List.of(Limit.parse("10/1m")), Duration.ofMillis(300), "alice");
		assertThatIllegalStateException()
			.isThrownBy(() -> overrides.set("orders", "c", List.of(Limit.parse("10/1m")), null, "alice"))
			.withMessageContaining("ratelimit.overrides.maximum");
		assertThat(overrides.find("orders", "c")).isNull();
		overrides.set("orders", "a", List.of(Limit.parse("20/1m")), null, "bob");
		assertThat(overrides.find("orders", "a").setBy()).isEqualTo("bob");
		await("b expires", () -> overrides.find("hello", "b") == null);
		// this instance's view runs on its estimate of Redis' clock, which may be a few milliseconds ahead of it;
		// Redis drops b on its own clock
		await("b expires on Redis' clock", () -> RedisTime.micros(redis()) / 1000 >= b.expiresAt().toEpochMilli());
		overrides.set("orders", "c", List.of(Limit.parse("10/1m")), null, "alice");
		assertThat(overrides.find("orders", "c")).isNotNull();
		assertThat(redis().opsForHash().keys(overrides.key())).as("the expired override was dropped")
			.containsExactlyInAnyOrder(RedisClientOverrides.VERSION, RedisClientOverrides.field("orders", "a"),
					RedisClientOverrides.field("orders", "c"));
	}

	@Test
	void aRestartedInstanceLoadsTheOverridesBeforeItStarts() {
		RedisClientOverrides first = instance(Duration.ofHours(1), 10);
		ClientOverride set = first.set("orders", "acme", List.of(Limit.parse("1000/1m")), null, "alice");
		first.close();
		assertThat(instance(Duration.ofHours(1), 10).find("orders", "acme")).isEqualTo(set);
	}

	static void await(String what, BooleanSupplier condition) {
		Instant deadline = Instant.now().plus(PATIENCE);
		while (!condition.getAsBoolean()) {
			assertThat(Instant.now()).as("time waited for: %s", what).isBefore(deadline);
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

}
