/**
 * Benchmarks of the limiter, run by {@code ratelimit-benchmarks/run.sh}; results go to {@code docs/benchmarks.md}.
 */
@NullMarked
package io.github.ratelimit.benchmarks;

import org.jspecify.annotations.NullMarked;
