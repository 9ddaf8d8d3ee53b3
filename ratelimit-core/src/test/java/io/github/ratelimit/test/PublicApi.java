package io.github.ratelimit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A module's public API document, {@code API.md} at the root of the module, read against the module's compiled
 * classes in {@code target/classes} (the module's directory is the working directory of its tests). The document
 * lists each package under a heading {@code ### <package>}, followed by a table
 * {@code | type | for | stability | what it is |} with one row per public top-level type, its simple name in
 * backticks, who it is for ({@code users}, {@code wiring} or {@code internal}), whether it is {@code stable} or
 * {@code unstable} (only a type for users can be stable), and what it is. Each module's {@code PublicApiTests}
 * extends this class.
 */
public abstract class PublicApi {

	private static final Set<String> FOR = Set.of("users", "wiring", "internal");

	private static final Set<String> STABILITY = Set.of("stable", "unstable");

	private static final String HEADING = "### ";

	private static final String ROW = "| `";

	private final Path document = Path.of("API.md");

	private final Path classes = Path.of("target", "classes");

	private final List<Row> rows = new ArrayList<>();

	private final List<String> malformed = new ArrayList<>();

	protected PublicApi() {
		read();
	}

	@Test
	void documentListsExactlyThePublicTypes() {
		Set<String> compiled = publicTypes();
		assertThat(compiled).as("public types in %s", this.classes.toAbsolutePath()).isNotEmpty();
		List<String> problems = new ArrayList<>(this.malformed);
		Set<String> documented = new TreeSet<>();
		for (Row row : this.rows) {
			if (!documented.add(row.name())) {
				problems.add("listed twice: " + row.name());
			}
		}
		for (String name : compiled) {
			if (!documented.contains(name)) {
				problems.add("public, missing from the document: " + name);
			}
		}
		for (String name : documented) {
			if (!compiled.contains(name)) {
				problems.add("documented, not a public top-level type in " + this.classes + ": " + name);
			}
		}
		assertThat(problems).as("types on which %s and %s disagree", this.document.toAbsolutePath(), this.classes)
			.isEmpty();
	}

	@Test
	void everyTypeSaysWhoItIsForAndHowStable() {
		List<String> problems = new ArrayList<>();
		for (Row row : this.rows) {
			if (!FOR.contains(row.usedFor())) {
				problems.add(row.name() + ": '" + row.usedFor() + "' is not users, wiring or internal");
			}
			if (!STABILITY.contains(row.stability())) {
				problems.add(row.name() + ": '" + row.stability() + "' is not stable or unstable");
			}
			else if (row.stability().equals("stable") && !row.usedFor().equals("users")) {
				problems.add(row.name() + ": stable, but for " + row.usedFor() + " (only a type for users is stable)");
			}
		}
		assertThat(this.rows).as("types listed in %s", this.document.toAbsolutePath()).isNotEmpty();
		assertThat(problems).as("rows of %s", this.document.toAbsolutePath()).isEmpty();
	}

	private void read() {
		String packageName = null;
		for (String line : lines(this.document)) {
			if (line.startsWith(HEADING)) {
				packageName = line.substring(HEADING.length()).strip();
			}
			else if (line.startsWith(ROW)) {
				String[] cells = line.split("\\|");
				String type = cells[1].strip();
				if (packageName == null || cells.length < 5 || !type.matches("`\\w+`")) {
					this.malformed.add("not a row of a package's table: " + line);
				}
				else {
					this.rows.add(new Row(packageName + "." + type.substring(1, type.length() - 1), cells[2].strip(),
							cells[3].strip()));
				}
			}
		}
	}

	private Set<String> publicTypes() {
		Set<String> types = new TreeSet<>();
		ClassLoader loader = PublicApi.class.getClassLoader();
		try (Stream<Path> files = Files.walk(this.classes)) {
			for (Path file : files.filter(PublicApi::isTopLevelClass).toList()) {
				String path = this.classes.relativize(file).toString();
				String name = path.substring(0, path.length() - ".class".length())
					.replace(file.getFileSystem().getSeparator(), ".");
				if (Modifier.isPublic(Class.forName(name, false, loader).getModifiers())) {
					types.add(name);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException("not on the test class path: " + ex.getMessage(), ex);
		}
		return types;
	}

	private static boolean isTopLevelClass(Path file) {
		String name = file.getFileName().toString();
		return name.endsWith(".class") && !name.contains("$") && !name.equals("package-info.class");
	}

	private static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("the module's API document " + file.toAbsolutePath(), ex);
		}
	}

	/**
	 * One row of the document.
	 * @param name the type's fully qualified name
	 * @param usedFor who the type is for
	 * @param stability whether the type is stable
	 */
	private record Row(String name, String usedFor, String stability) {
	}

}
