package io.github.ratelimit.benchmarks;

/**
 * Decisions per second of one measured run.
 *
 * @param perSecond decisions per second over the measured interval
 * @param decisions decisions made in the measured interval
 * @param errors decisions that threw
 */
record Throughput(double perSecond, long decisions, long errors) {

}
