package io.github.ratelimit.spring;

import io.github.ratelimit.test.LettuceLibrary;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a backend's {@link LinkageError} names the incompatible library: from the jar of the class the error names,
 * past JDK classes of its signature, or from the package of a class that is missing.
 */
class IncompatibleLibraryTests {

	@Test
	void aMissingMethodNamesTheJarOfItsClassAndTheCaller() {
		NoSuchMethodError error = new NoSuchMethodError(LettuceLibrary.REMOVED_METHOD);
		assertThat(IncompatibleLibrary.describe(error)).isEqualTo(LettuceLibrary.described()
				+ " is not compatible with this version of the rate limit starter: java.lang.NoSuchMethodError: "
				+ LettuceLibrary.REMOVED_METHOD + ", called from " + getClass().getName()
				+ ".aMissingMethodNamesTheJarOfItsClassAndTheCaller");
	}

	@Test
	void jdkClassesOfASignatureArePassedOver() {
		NoSuchMethodError error = new NoSuchMethodError(
				"'java.lang.String io.lettuce.core.RedisClient.describe(java.util.List)'");
		assertThat(IncompatibleLibrary.describe(error)).startsWith(LettuceLibrary.described() + " is not compatible");
	}

	@Test
	void aMissingClassNamesTheLibraryOfItsPackage() {
		// read first: its package is then known, as it is in an application that has used Lettuce
		String lettuce = LettuceLibrary.version();
		NoClassDefFoundError error = new NoClassDefFoundError("io/lettuce/core/cluster/api/async/RemovedCommands");
		assertThat(IncompatibleLibrary.describe(error)).startsWith(lettuce
				+ " is not compatible with this version of the rate limit starter: java.lang.NoClassDefFoundError: "
				+ "io/lettuce/core/cluster/api/async/RemovedCommands, called from ");
	}

	@Test
	void anErrorThatNamesNoLibraryStillSaysWhatFailed() {
		AbstractMethodError error = new AbstractMethodError();
		assertThat(IncompatibleLibrary.describe(error)).startsWith("A library is not compatible with this version of "
				+ "the rate limit starter: java.lang.AbstractMethodError, called from ");
	}

}
