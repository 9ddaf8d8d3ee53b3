package io.github.ratelimit.autoconfigure;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.util.ClassUtils;

/**
 * Fails start-up on a Spring Boot older than 4, before any auto-configuration could fail there less clearly (such as
 * the Redis backend's, whose conditions name Boot 4 classes, saying Spring Data Redis is missing). Registered in
 * {@code spring.factories}, whose keys Spring Boot 3 reads too, and using only what Spring Boot 2 and 3 have as well.
 * The line is the major of {@link SpringBootVersion}; where that is unknown (Spring Boot 2 in a shaded jar), a class
 * that Spring Boot has from 4.0 on tells it.
 */
class SpringBootVersionCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** The Spring Boot lines the starter is built and tested on (ratelimit-consumer-tests starts an app on each). */
	private static final String SUPPORTED = "4.0 or 4.1";

	/** A class that Spring Boot has from 4.0 on: the line, when its version is unknown (as in a shaded jar). */
	private static final String BOOT_4_CLASS = "org.springframework.boot.EnvironmentPostProcessor";

	/** The major version at the start of a version. */
	private static final Pattern MAJOR = Pattern.compile("\\d{1,9}");

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		UnsupportedSpringBootException unsupported = unsupported(
				SpringBootVersionCheck.class.getPackage().getImplementationVersion(), SpringBootVersion.getVersion(),
				ClassUtils.isPresent(BOOT_4_CLASS, SpringBootVersionCheck.class.getClassLoader()));
		if (unsupported != null) {
			throw unsupported;
		}
	}

	/**
	 * The failure for the Spring Boot an application runs, if older than 4.
	 * @param starterVersion the starter's version, if known
	 * @param bootVersion the Spring Boot version, if known
	 * @param boot4ClassPresent whether a class that Spring Boot has from 4.0 on is there (for an unknown version)
	 * @return the failure, or {@code null} on Spring Boot 4 or later
	 */
	static @Nullable UnsupportedSpringBootException unsupported(@Nullable String starterVersion,
			@Nullable String bootVersion, boolean boot4ClassPresent) {
		int major = major(bootVersion);
		if ((major < 0) ? boot4ClassPresent : major >= 4) {
			return null;
		}
		String starter = (starterVersion != null) ? "ratelimit-spring-boot " + starterVersion : "ratelimit-spring-boot";
		String running = (major < 0) ? "a Spring Boot older than 4.0" : "Spring Boot " + bootVersion;
		return new UnsupportedSpringBootException(starter + " needs Spring Boot " + SUPPORTED
				+ ", and this application runs " + running, "upgrade the application to Spring Boot " + SUPPORTED
				+ " (there is no release of ratelimit-spring-boot for Spring Boot 3 or earlier)");
	}

	/** The major version a Spring Boot version starts with, or -1 if unknown. */
	private static int major(@Nullable String version) {
		Matcher major = (version != null) ? MAJOR.matcher(version) : null;
		return (major != null && major.lookingAt()) ? Integer.parseInt(major.group()) : -1;
	}

	/**
	 * Thrown at start-up on a Spring Boot older than 4; its message is one sentence, and its failure analysis
	 * splits it into the problem and the fix.
	 */
	static final class UnsupportedSpringBootException extends RuntimeException {

		private final String problem;

		private final String action;

		UnsupportedSpringBootException(String problem, String action) {
			super(problem + ": " + action + ".");
			this.problem = problem;
			this.action = action;
		}

		String problem() {
			return this.problem;
		}

		String action() {
			return this.action;
		}

	}

}
