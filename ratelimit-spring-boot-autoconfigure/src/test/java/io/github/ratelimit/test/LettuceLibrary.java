package io.github.ratelimit.test;

import java.net.URISyntaxException;
import java.nio.file.Path;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * The Lettuce on the test class path as an incompatibility names it, read from its jar: the title and version of its
 * manifest and the jar's name, such as {@code Lettuce 6.8.2.RELEASE/34f8700 (lettuce-core-6.8.2.RELEASE.jar)}.
 */
public final class LettuceLibrary {

	/** A method of Lettuce 6.8 that Lettuce 7 removed, as a {@link NoSuchMethodError} names it. */
	public static final String REMOVED_METHOD = "'boolean " + RedisClusterAsyncCommands.class.getName() + ".isOpen()'";

	private LettuceLibrary() {
	}

	/**
	 * The title and version of Lettuce's manifest.
	 * @return such as {@code Lettuce 6.8.2.RELEASE/34f8700}
	 */
	public static String version() {
		Package lettuce = RedisClusterAsyncCommands.class.getPackage();
		return lettuce.getImplementationTitle() + " " + lettuce.getImplementationVersion();
	}

	/**
	 * The title and version of Lettuce's manifest and its jar.
	 * @return such as {@code Lettuce 6.8.2.RELEASE/34f8700 (lettuce-core-6.8.2.RELEASE.jar)}
	 */
	public static String described() {
		try {
			Path jar = Path.of(RedisClusterAsyncCommands.class.getProtectionDomain().getCodeSource().getLocation().toURI());
			return version() + " (" + jar.getFileName() + ")";
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
