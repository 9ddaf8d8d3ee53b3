package io.github.ratelimit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Markdown page of the repository, read as GitHub renders it: its fenced blocks, the anchors of its headings
 * (outside fences) and its links.
 */
final class MarkdownPage {

	/** The repository's root: the parent of this module, where the build runs its tests. */
	static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern FENCE = Pattern.compile("^( {0,3}|\\s*)(```+|~~~+)\\s*([^`\\s]*).*$");

	private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");

	private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

	/** An inline link or image: {@code [text](target "title")}; the target has no spaces or parentheses. */
	private static final Pattern INLINE_LINK = Pattern.compile("\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

	/** A link reference definition: {@code [label]: target}. */
	private static final Pattern REFERENCE = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");

	/** An HTML link or image: {@code href="target"}, {@code src="target"}. */
	private static final Pattern HTML_LINK = Pattern.compile("(?:href|src)=\"([^\"]*)\"");

	private final Path file;

	private final List<String> lines;

	private final List<Block> blocks = new ArrayList<>();

	private final Set<String> anchors = new LinkedHashSet<>();

	private final List<Link> links = new ArrayList<>();

	private MarkdownPage(Path file, List<String> lines) {
		this.file = file;
		this.lines = lines;
		parse();
	}

	/**
	 * Every Markdown page of the repository, but those of build output and of Git.
	 * @return the pages, by path
	 */
	static List<MarkdownPage> all() {
		try (Stream<Path> files = Files.walk(ROOT)) {
			return files.filter((file) -> file.toString().endsWith(".md"))
				.filter((file) -> Stream.of(ROOT.relativize(file).toString().split("[/\\\\]"))
					.noneMatch((part) -> part.equals("target") || part.equals("node_modules") || part.startsWith(".")))
				.sorted()
				.map(MarkdownPage::read)
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A page of the given lines, as if read from a file.
	 * @param file where the page would be
	 * @param lines its lines
	 * @return the page
	 */
	static MarkdownPage of(Path file, List<String> lines) {
		return new MarkdownPage(file.toAbsolutePath().normalize(), lines);
	}

	static MarkdownPage read(Path file) {
		try {
			return new MarkdownPage(file.toAbsolutePath().normalize(), Files.readAllLines(file));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The page's path from the repository's root, with {@code /} between names.
	 * @return the path
	 */
	String name() {
		return ROOT.relativize(this.file).toString().replace('\\', '/');
	}

	Path file() {
		return this.file;
	}

	List<String> lines() {
		return this.lines;
	}

	List<Block> blocks() {
		return this.blocks;
	}

	Set<String> anchors() {
		return this.anchors;
	}

	List<Link> links() {
		return this.links;
	}

	/**
	 * The package of the page's snippet sources: its file name without {@code .md} and dashes, {@code readme} for a
	 * README at the root, the sample's name without dashes for a sample's README.
	 * @return the package's name
	 */
	String snippetPackage() {
		String name = name();
		String page = name.equals("README.md") ? "readme"
				: name.endsWith("/README.md") ? name.substring(0, name.indexOf('/'))
						: name.substring(name.lastIndexOf('/') + 1, name.length() - ".md".length());
		return "io.github.ratelimit.docs." + page.replace("-", "").toLowerCase(Locale.ROOT);
	}

	/**
	 * The page's text with other content in one of its blocks.
	 * @param block the block
	 * @param content the block's new lines, without the indentation of its fence
	 * @return the page's new text
	 */
	String withBlockContent(Block block, List<String> content) {
		List<String> result = new ArrayList<>(this.lines.subList(0, block.line()));
		content.forEach((line) -> result.add(line.isEmpty() ? line : block.indent() + line));
		result.addAll(this.lines.subList(block.line() + block.content().size(), this.lines.size()));
		return String.join("\n", result) + "\n";
	}

	private void parse() {
		Map<String, Integer> slugs = new HashMap<>();
		Block open = null;
		String closing = null;
		List<String> content = null;
		for (int index = 0; index < this.lines.size(); index++) {
			String line = this.lines.get(index);
			if (open != null) {
				if (closes(line, closing)) {
					this.blocks.add(new Block(open.line(), this.blocks.size(), open.indent(), open.language(),
							List.copyOf(content), open.marker()));
					open = null;
				}
				else {
					content.add(line.startsWith(open.indent()) ? line.substring(open.indent().length())
							: line.stripLeading());
				}
				continue;
			}
			Matcher fence = FENCE.matcher(line);
			if (fence.matches()) {
				String marker = (index > 0) ? this.lines.get(index - 1).strip() : "";
				open = new Block(index + 1, this.blocks.size(), fence.group(1), fence.group(3), List.of(), marker);
				closing = fence.group(2);
				content = new ArrayList<>();
				continue;
			}
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				String slug = slug(heading.group(2));
				int seen = slugs.merge(slug, 1, Integer::sum) - 1;
				this.anchors.add((seen == 0) ? slug : slug + "-" + seen);
			}
			Matcher anchor = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"").matcher(line);
			while (anchor.find()) {
				this.anchors.add(anchor.group(1));
			}
			findLinks(index + 1, line);
		}
		if (open != null) {
			this.blocks.add(new Block(open.line(), this.blocks.size(), open.indent(), open.language(),
					List.copyOf(content), open.marker()));
		}
	}

	private static boolean closes(String line, String fence) {
		String stripped = line.strip();
		return stripped.length() >= fence.length() && stripped.chars().allMatch((c) -> c == fence.charAt(0));
	}

	private void findLinks(int number, String line) {
		String text = CODE_SPAN.matcher(line).replaceAll("code");
		for (Pattern pattern : List.of(INLINE_LINK, REFERENCE, HTML_LINK)) {
			Matcher link = pattern.matcher(text);
			while (link.find()) {
				this.links.add(new Link(number, link.group(1)));
			}
		}
	}

	/**
	 * The anchor GitHub gives a heading: its text as rendered (links and emphasis reduced to their text), lower
	 * case, without the characters other than letters, digits, spaces, {@code -} and {@code _}, spaces made
	 * {@code -}.
	 * @param heading the heading's Markdown
	 * @return the anchor, without {@code #}
	 */
	static String slug(String heading) {
		String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
			.replaceAll("<[^>]+>", "")
			.replaceAll("(\\*+|(?<![\\p{L}\\p{N}])_+|_+(?![\\p{L}\\p{N}]))", "");
		return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
	}

	/**
	 * A fenced block.
	 * @param line the number of the line of its opening fence, from 1
	 * @param ordinal its place among the page's blocks, from 0
	 * @param indent the indentation of its opening fence, removed from its content
	 * @param language the first word of its info string; empty when it has none
	 * @param content its lines, between the fences
	 * @param marker the line just before its opening fence, stripped
	 */
	record Block(int line, int ordinal, String indent, String language, List<String> content, String marker) {
	}

	/**
	 * A link.
	 * @param line the number of its line, from 1
	 * @param target what it links to
	 */
	record Link(int line, String target) {
	}

}
