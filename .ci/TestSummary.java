import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * One line that sums every test report of a build (Surefire's and Failsafe's, of every module and of the projects the
 * build runs with the invoker), e.g. {@code 2170 passed, 0 failed, 0 skipped (157 report files)}. It counts test cases,
 * since a nested class's cases are in its outer class's report. Run with {@code java .ci/TestSummary.java <directory>}.
 */
public final class TestSummary {

	public static void main(String[] args) throws Exception {
		Path root = Path.of((args.length > 0) ? args[0] : ".");
		List<Path> reports = reports(root);
		long tests = 0;
		long failed = 0;
		long skipped = 0;
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		for (Path report : reports) {
			NodeList cases = factory.newDocumentBuilder().parse(report.toFile()).getElementsByTagName("testcase");
			for (int i = 0; i < cases.getLength(); i++) {
				Element testCase = (Element) cases.item(i);
				tests++;
				if (has(testCase, "failure") || has(testCase, "error")) {
					failed++;
				}
				else if (has(testCase, "skipped")) {
					skipped++;
				}
			}
		}
		System.out.printf("%d passed, %d failed, %d skipped (%d report files)%n", tests - failed - skipped, failed,
				skipped, reports.size());
	}

	private static List<Path> reports(Path root) throws IOException {
		try (Stream<Path> files = Files.walk(root)) {
			return files.filter(TestSummary::isReport).sorted().collect(Collectors.toList());
		}
	}

	private static boolean isReport(Path file) {
		String name = file.getFileName().toString();
		Path parent = file.getParent();
		String directory = (parent != null) ? parent.getFileName().toString() : "";
		return name.startsWith("TEST-") && name.endsWith(".xml")
				&& (directory.equals("surefire-reports") || directory.equals("failsafe-reports"))
				&& file.toString().contains("target");
	}

	private static boolean has(Element testCase, String child) {
		return testCase.getElementsByTagName(child).getLength() > 0;
	}

}
