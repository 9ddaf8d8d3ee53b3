package io.github.ratelimit.test.blockhound;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.test.HttpProbe;
import io.github.ratelimit.test.TestRedis;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.test.StepVerifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Proves BlockHound is live in the JVM of the WebFlux tests: a blocking call fails on each kind of thread a decision
 * or a request runs on there (Reactor's parallel scheduler, Reactor Netty's server event loop, Lettuce's event loop),
 * and is allowed where blocking is fine (a test's own thread, Reactor's bounded elastic scheduler) and inside Lettuce's
 * own lock, which writers on event loops contend for.
 */
class BlockHoundWebFluxTests {

	private static final Duration BUDGET = Duration.ofSeconds(30);

	@Test
	void blockingOnReactorsParallelSchedulerShouldFail() {
		StepVerifier.create(Mono.delay(Duration.ofMillis(1)).map((tick) -> sleep()))
			.expectError(BlockingOperationError.class)
			.verify(BUDGET);
	}

	@Test
	void blockingOnReactorNettysServerEventLoopShouldFail() {
		DisposableServer server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> Mono.fromCallable(BlockHoundWebFluxTests::sleep)
				.then(response.status(200).send())
				.onErrorResume((error) -> response.status(500).sendString(Mono.just(error.getClass().getName())).then()))
			.bindNow(BUDGET);
		try {
			HttpResponse<String> answer = new HttpProbe(server.port()).get("/");
			assertThat(answer.statusCode()).isEqualTo(500);
			assertThat(answer.body()).isEqualTo(BlockingOperationError.class.getName());
		}
		finally {
			server.disposeNow(BUDGET);
		}
	}

	@Test
	void blockingOnLettucesEventLoopShouldFail() throws Exception {
		RedisClient client = RedisClient.create(TestRedis.get().url());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			// answered on Lettuce's event loop one second from now, long after the callback is attached
			CompletableFuture<KeyValue<String, String>> answer = connection.async()
				.blpop(1, "blockhound-missing-list")
				.toCompletableFuture();
			CompletableFuture<Object> blocked = answer.thenApply((value) -> sleep());
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> blocked.get(BUDGET.toSeconds(), TimeUnit.SECONDS))
				.havingRootCause()
				.isInstanceOf(BlockingOperationError.class);
		}
		finally {
			client.shutdown();
		}
	}

	@Test
	void lettucesWritersOnEventLoopsShouldNeverWedgeTheirConnection() {
		LettuceWriterContention.assertEveryWriterAnswered(TestRedis.get().url());
	}

	@Test
	void blockingOnBoundedElasticShouldBeAllowed() {
		StepVerifier.create(Mono.fromCallable(BlockHoundWebFluxTests::sleep).subscribeOn(Schedulers.boundedElastic()))
			.expectNext("slept")
			.verifyComplete();
	}

	private static String sleep() {
		try {
			Thread.sleep(1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return "slept";
	}

}
