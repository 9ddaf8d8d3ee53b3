package io.github.ratelimit.spring;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;

/**
 * The names by which responses refer to the limits of one policy: the items of {@code RateLimit-Policy} and
 * {@code RateLimit}, and the {@code violated-policies} of a problem body. Unique within the policy: the policy's name
 * (followed by {@code -<plan>} for a plan of it, such as {@code "orders-pro"}, or {@code "orders-override"} for a
 * client's override) when it has one limit, else that name and the limit's period ({@code "orders-1m"}, {@code "orders-1d"}).
 * Limits that share a period are named with their whole text ({@code "orders-10/1m"}, {@code "orders-20/1m"}); a
 * limit listed twice is one limit, with one name. Names are quoted as structured-field strings where they are sent,
 * which allow printable ASCII only.
 */
final class PolicyItems {

	private final Map<Limit, String> names;

	private PolicyItems(Map<Limit, String> names) {
		this.names = names;
	}

	/**
	 * The item names of a policy's limits.
	 * @param policy the policy
	 * @return its items
	 */
	static PolicyItems of(Policy policy) {
		List<Limit> limits = policy.limits().stream().distinct().toList();
		Map<Limit, String> names = new LinkedHashMap<>();
		String base = (policy.plan() != null) ? policy.name() + "-" + policy.plan() : policy.name();
		for (Limit limit : limits) {
			names.put(limit, (limits.size() == 1) ? base : base + "-" + suffix(limit, limits));
		}
		return new PolicyItems(Collections.unmodifiableMap(names));
	}

	private static String suffix(Limit limit, List<Limit> limits) {
		boolean periodShared = limits.stream()
			.filter((other) -> other.period().equals(limit.period()))
			.count() > 1;
		return periodShared ? limit.toString() : limit.periodText();
	}

	/**
	 * The policy's distinct limits, in the policy's order, each with its item name.
	 * @return the item name of each limit
	 */
	Map<Limit, String> byLimit() {
		return this.names;
	}

	/**
	 * The item names of some of the policy's limits, each once, in the order given. A limit that is not one of the
	 * policy's own, such as a limit of the local fallback (divided by the number of instances, with the same periods),
	 * is named by the items of its period.
	 * @param limits the limits
	 * @return their names
	 */
	List<String> namesOf(List<Limit> limits) {
		Set<String> names = new LinkedHashSet<>();
		for (Limit limit : limits) {
			String name = this.names.get(limit);
			if (name != null) {
				names.add(name);
			}
			else {
				this.names.forEach((own, ownName) -> {
					if (own.period().equals(limit.period())) {
						names.add(ownName);
					}
				});
			}
		}
		return List.copyOf(names);
	}

	/**
	 * The item names of all the policy's limits, in the policy's order.
	 * @return every name
	 */
	List<String> names() {
		return List.copyOf(this.names.values());
	}

}
