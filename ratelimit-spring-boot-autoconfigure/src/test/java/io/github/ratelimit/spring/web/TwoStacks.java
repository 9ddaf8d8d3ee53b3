package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.ratelimit.test.OwnReactorResources;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One application on both web stacks, started with the same properties: Spring MVC on Tomcat and WebFlux on Netty,
 * each under a key prefix of its own, so both start from fresh state. The same request sent to both must get the
 * same response: the same status, the same headers (all but {@code Date}) and the same body, byte for byte. Each
 * response must also keep {@link ResponseHeaderRules}.
 */
final class TwoStacks implements AutoCloseable {

	private final RunningServer mvc;

	private final RunningServer webFlux;

	private TwoStacks(RunningServer mvc, RunningServer webFlux) {
		this.mvc = mvc;
		this.webFlux = webFlux;
	}

	/**
	 * Starts both applications, each a {@link ContractTestApplication} with its controller.
	 * @param mvcController the controller of the Spring MVC application
	 * @param webFluxController the controller of the WebFlux application
	 * @param properties {@code name=value} pairs given to both
	 * @return both running applications
	 */
	static TwoStacks start(Class<?> mvcController, Class<?> webFluxController, String... properties) {
		RunningServer servlet = RunningServer.start(WebApplicationType.SERVLET,
				new Class<?>[] { ContractTestApplication.class, mvcController }, withOwnKeyPrefix(properties));
		try {
			RunningServer reactive = RunningServer.start(WebApplicationType.REACTIVE,
					new Class<?>[] { ContractTestApplication.class, webFluxController, OwnReactorResources.class },
					withOwnKeyPrefix(properties));
			assertThat(servlet.webServer()).isEqualTo("TomcatWebServer");
			assertThat(reactive.webServer()).isEqualTo("NettyWebServer");
			return new TwoStacks(servlet, reactive);
		}
		catch (RuntimeException | AssertionError ex) {
			servlet.close();
			throw ex;
		}
	}

	private static String[] withOwnKeyPrefix(String... properties) {
		List<String> all = new ArrayList<>(List.of(properties));
		all.add("ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix());
		return all.toArray(String[]::new);
	}

	/**
	 * Sends {@code GET path} to the Spring MVC application, then to the WebFlux one, and checks that they answer
	 * alike.
	 * @param path the path and query
	 * @return the WebFlux application's response
	 */
	WireResponse get(String path) {
		WireResponse mvc = ResponseHeaderRules.check(WireResponse.get(this.mvc.port(), path));
		WireResponse webFlux = ResponseHeaderRules.check(WireResponse.get(this.webFlux.port(), path));
		assertThat(webFlux.status()).as("status of WebFlux's\n%s\nand of MVC's\n%s", webFlux, mvc)
			.isEqualTo(mvc.status());
		assertThat(compared(webFlux)).as("headers of WebFlux's\n%s\nand of MVC's\n%s", webFlux, mvc)
			.isEqualTo(compared(mvc));
		assertThat(webFlux.body()).as("body of WebFlux's\n%s\nand of MVC's\n%s", webFlux, mvc).isEqualTo(mvc.body());
		return webFlux;
	}

	/**
	 * Every header line but {@code Date}, with names in lower case (HTTP names are case-insensitive), in order of
	 * name, the lines of one name in the order sent.
	 */
	private static List<Map.Entry<String, String>> compared(WireResponse response) {
		return response.headers().stream()
			.filter((header) -> !header.getKey().equalsIgnoreCase("Date"))
			.map((header) -> Map.entry(header.getKey().toLowerCase(Locale.ROOT), header.getValue()))
			.sorted(Map.Entry.comparingByKey(Comparator.naturalOrder()))
			.toList();
	}

	@Override
	public void close() {
		try {
			this.webFlux.close();
		}
		finally {
			this.mvc.close();
		}
	}

}
