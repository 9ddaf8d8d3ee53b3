package io.github.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Opens this module's copy of a classpath resource: the one beside its classes, not that of another jar.
 */
public final class ModuleResources {

	private ModuleResources() {
	}

	/**
	 * Opens the resource, asserting that this module has one.
	 * @param resource the resource's path on the classpath
	 * @return its content
	 * @throws IOException on failure to open it
	 */
	public static InputStream open(String resource) throws IOException {
		String module = RateLimitAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation().toString();
		List<URL> ours = Collections.list(ModuleResources.class.getClassLoader().getResources(resource))
			.stream()
			.filter((url) -> url.toString().startsWith(module) || url.toString().startsWith("jar:" + module))
			.toList();
		assertThat(ours).as("%s of this module", resource).hasSize(1);
		return ours.get(0).openStream();
	}

}
