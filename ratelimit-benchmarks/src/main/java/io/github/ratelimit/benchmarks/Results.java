package io.github.ratelimit.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Everything one run of the benchmarks measured, as the report and the chart read it.
 */
final class Results {

	/** Decisions per second, per contender, algorithm and thread count, in every run. */
	final DecisionBenchmark.Decisions decisions;

	/** Decisions per second through the enforcer: plain policy, plans, override; per thread count, in every run. */
	final PlanDecisions.Result plans;

	/** Decisions per second and Redis calls per decision, leased against exact; per cell, in every run. */
	final LeaseDecisions.Result leases;

	/** The in-process decision cells on JMH, with bytes allocated per decision. */
	JmhDecisions.@Nullable Measured jmh;

	/** Memory per client key: per algorithm name, and "Bucket4j". */
	final Map<String, MemoryPerKey.Result> memory = new LinkedHashMap<>();

	/** Deny cache on and off. */
	final Map<Boolean, DenyCacheCalls.Result> denyCache = new LinkedHashMap<>();

	/** Why redis-benchmark was not run, when it was not. */
	@Nullable String redisBenchmarkSkipped;

	HttpOverhead.@Nullable Result http;

	/** Why the HTTP part was not measured, when it was not. */
	@Nullable String httpSkipped;

	/** Waiting for a permit: ours, Redisson and Bucket4j holding several instances to one rate. */
	WaitingPermits.@Nullable Result waiting;

	GatewayOverhead.@Nullable Result gateway;

	/** Why the gateway cell was not measured, when it was not. */
	@Nullable String gatewaySkipped;

	Results(DecisionBenchmark.Decisions decisions, PlanDecisions.Result plans, LeaseDecisions.Result leases) {
		this.decisions = decisions;
		this.plans = plans;
		this.leases = leases;
	}

}
