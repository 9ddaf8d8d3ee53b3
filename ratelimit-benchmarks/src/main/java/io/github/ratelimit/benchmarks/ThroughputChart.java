package io.github.ratelimit.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The chart of decisions per second against threads (connections for redis-benchmark).
 */
final class ThroughputChart {

	private ThroughputChart() {
	}

	/**
	 * Writes the chart as a PNG.
	 * @param series per series name, decisions per second per thread count, in order
	 * @param file the PNG
	 */
	static void write(Map<String, Map<Integer, Double>> series, Path file) throws IOException {
		DefaultCategoryDataset dataset = new DefaultCategoryDataset();
		series.forEach((name, points) -> points.forEach((threads, rate) -> dataset.addValue(rate, name,
				Integer.toString(threads))));
		JFreeChart chart = ChartFactory.createLineChart(
				"Decisions per second, median of the runs (10,000 keys, limit never reached)",
				"client threads (redis-benchmark: connections)", "decisions per second", dataset,
				PlotOrientation.VERTICAL, true, false, false);
		chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
		chart.setBackgroundPaint(Color.WHITE);
		CategoryPlot plot = chart.getCategoryPlot();
		plot.setBackgroundPaint(Color.WHITE);
		plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
		LineAndShapeRenderer renderer = (LineAndShapeRenderer) plot.getRenderer();
		renderer.setDefaultShapesVisible(true);
		Color[] colors = { new Color(0x1f77b4), new Color(0x2ca02c), new Color(0xd62728), new Color(0x7f7f7f),
				new Color(0x9467bd) };
		for (int i = 0; i < series.size(); i++) {
			renderer.setSeriesPaint(i, colors[i % colors.length]);
			renderer.setSeriesStroke(i, new BasicStroke(2.5f));
		}
		ChartUtils.saveChartAsPNG(file.toFile(), chart, 960, 560);
	}

}
