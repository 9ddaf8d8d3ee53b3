package io.github.ratelimit.spring;

import java.util.Map;

import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * The plan strategies of configuration: {@code bean:<PlanResolver bean>} and {@code expr:<SpEL>}, evaluated like an
 * {@code expr:} key strategy (over the request as root and {@code #request}, read-only, instance methods allowed) with
 * the client's key as {@code #key}; outside a web request the root and {@code #request} are {@code null}. An
 * expression that fails on a request gives the default plan (the first failure logged as a warning).
 */
final class PlanResolvers {

	private static final FirstWarning failures = new FirstWarning(LogFactory.getLog(PlanResolvers.class));

	private PlanResolvers() {
	}

	/**
	 * The resolver of a configured plan strategy.
	 * @param strategy the strategy, such as {@code bean:orderPlans}
	 * @param beanFactory where {@code bean:} resolvers are looked up
	 * @return the resolver
	 * @throws IllegalArgumentException when the strategy is unknown, an unparsable expression, or names no
	 * {@link PlanResolver} bean
	 */
	static PlanResolver of(String strategy, BeanFactory beanFactory) {
		String trimmed = strategy.trim();
		int colon = trimmed.indexOf(':');
		String kind = (colon < 0) ? trimmed : trimmed.substring(0, colon);
		String argument = (colon < 0) ? "" : trimmed.substring(colon + 1).trim();
		if (argument.isEmpty() || !(kind.equals("bean") || kind.equals("expr"))) {
			throw new IllegalArgumentException("Unknown plan strategy '" + strategy
					+ "'; expected bean:<PlanResolver bean> or expr:<SpEL>");
		}
		return kind.equals("bean") ? bean(strategy, argument, beanFactory) : expression(strategy, argument);
	}

	private static PlanResolver bean(String strategy, String name, BeanFactory beanFactory) {
		try {
			return beanFactory.getBean(name, PlanResolver.class);
		}
		catch (NoSuchBeanDefinitionException | BeanNotOfRequiredTypeException ex) {
			throw new IllegalArgumentException("Plan strategy '" + strategy + "' names no PlanResolver bean '" + name
					+ "'; declare a bean of type " + PlanResolver.class.getName() + " named '" + name + "'", ex);
		}
	}

	private static PlanResolver expression(String strategy, String source) {
		SpelExpression expression = RequestKeyResolvers.parse(strategy, source);
		return (key, request) -> {
			try {
				return RequestKeyResolvers.evaluate(expression, (request != null) ? request.nativeRequest() : null,
						Map.of("key", key));
			}
			catch (RuntimeException ex) {
				// SpEL rethrows what a method it calls throws as it is, not as an EvaluationException
				failures.log(strategy, "Plan strategy '" + strategy + "' failed on a request, which gets the default "
						+ "plan: " + ex.getMessage());
				return null;
			}
		};
	}

}
