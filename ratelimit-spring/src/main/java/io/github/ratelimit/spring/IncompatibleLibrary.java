package io.github.ratelimit.spring;

import java.security.CodeSource;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Names the library behind a {@link LinkageError} that a backend threw (a method, field or class its code was built
 * against and the application's version of the library lacks, such as a Lettuce release another Spring Boot line
 * manages): the title and version in the manifest of the class the error names, and its jar.
 */
final class IncompatibleLibrary {

	/** A qualified name, with dots or slashes: of a class, or of a member after its class. */
	private static final Pattern QUALIFIED_NAME = Pattern.compile("[A-Za-z_$][\\w$]*(?:[./][A-Za-z_$][\\w$]*)+");

	private IncompatibleLibrary() {
	}

	/**
	 * Says which library a backend's error shows to be incompatible, for example {@code Lettuce
	 * 7.5.2.RELEASE/5728917 (lettuce-core-7.5.2.RELEASE.jar) is not compatible with this version of the rate limit
	 * starter: java.lang.NoSuchMethodError: 'boolean io.lettuce.core...isOpen()', called from
	 * io.github.ratelimit.redis.LettuceScriptExecutor.connected}.
	 * @param error the error
	 * @return the description
	 */
	static String describe(LinkageError error) {
		StackTraceElement[] trace = error.getStackTrace();
		String caller = (trace.length > 0) ? ", called from " + trace[0].getClassName() + "." + trace[0].getMethodName()
				: "";
		return library(error) + " is not compatible with this version of the rate limit starter: " + error + caller;
	}

	/**
	 * The first class named in the error's message that a jar of the application holds (a JDK class of a signature
	 * is passed over); else, for a class that is missing, the library its package came from.
	 */
	private static String library(LinkageError error) {
		String message = error.getMessage();
		@Nullable String missing = null;
		Matcher names = QUALIFIED_NAME.matcher((message != null) ? message : "");
		while (names.find()) {
			String name = names.group().replace('/', '.');
			Class<?> type = classOf(name);
			String jar = (type != null) ? jar(type) : null;
			if (jar != null) {
				return title(type.getPackage(), type.getPackageName()) + " (" + jar + ")";
			}
			if (type == null && missing == null) {
				missing = name;
			}
		}
		if (missing == null) {
			return "A library";
		}
		ClassLoader loader = IncompatibleLibrary.class.getClassLoader();
		Package known = (loader != null) ? loader.getDefinedPackage(missing.substring(0, missing.lastIndexOf('.'))) : null;
		return title(known, "The library of " + missing);
	}

	/**
	 * The class a name denotes, or the class whose member it names ({@code a.b.Type.method}), if it can be loaded.
	 */
	private static @Nullable Class<?> classOf(String name) {
		for (String candidate = name; candidate.indexOf('.') > 0;
				candidate = candidate.substring(0, candidate.lastIndexOf('.'))) {
			try {
				return Class.forName(candidate, false, IncompatibleLibrary.class.getClassLoader());
			}
			catch (ClassNotFoundException | LinkageError ex) {
				// not a class: perhaps its member, or a class missing too
			}
		}
		return null;
	}

	private static String title(@Nullable Package source, String otherwise) {
		String title = (source != null) ? source.getImplementationTitle() : null;
		if (title == null) {
			return otherwise;
		}
		String version = source.getImplementationVersion();
		return (version != null) ? title + " " + version : title;
	}

	/**
	 * The name of the jar (or directory) a class was loaded from, or {@code null} for a class of the JDK.
	 */
	private static @Nullable String jar(Class<?> type) {
		CodeSource source = type.getProtectionDomain().getCodeSource();
		if (source == null || source.getLocation() == null) {
			return null;
		}
		String location = source.getLocation().toString();
		while (location.endsWith("/") || location.endsWith("!")) {
			location = location.substring(0, location.length() - 1);
		}
		return location.substring(location.lastIndexOf('/') + 1);
	}

}
