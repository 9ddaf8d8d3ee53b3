package io.github.ratelimit.spring;

import java.security.Principal;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.util.StringUtils;

/**
 * The key strategies of configuration: {@code ip}, {@code global}, {@code principal}, {@code header:<Name>},
 * {@code param:<name>}, {@code expr:<SpEL over the request>} and {@code bean:<KeyResolver bean>}.
 * <p>
 * {@code ip} is the connection's {@linkplain RateLimitRequest#remoteAddress() remote address}, grouped by its network
 * prefix ({@link IpKeys}: IPv6 by {@code /64} unless configured): behind a proxy, turn on Spring Boot's forwarded
 * header support ({@code server.forward-headers-strategy=native}, with the proxies trusted); {@code X-Forwarded-For}
 * is never read here. A strategy that finds nothing (a missing header, an anonymous user) counts the request under the
 * client's IP address, as the key {@code ip:<address prefix>} (see {@link #orIp(KeyResolver, IpKeys)}); so does an
 * {@code expr:} expression that fails on a request (the first failure is logged as a warning, later ones at debug
 * level). {@code expr:} is evaluated in a {@link SimpleEvaluationContext}: it reads the request's properties and
 * calls its instance methods, with the request as root and as {@code #request}; type references, constructors, bean
 * references and assignments stop start-up.
 */
public final class RequestKeyResolvers {

	/** The key of every request under the {@code global} strategy. */
	public static final String GLOBAL_KEY = "global";

	private static final FirstWarning failures = new FirstWarning(LogFactory.getLog(RequestKeyResolvers.class));

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	/** What the key of a client counted by its address under another strategy starts with. */
	public static final String FALLBACK_PREFIX = "ip:";

	private static final String IP = "ip";

	private static final String ESCAPE = "~";

	private RequestKeyResolvers() {
	}

	/**
	 * Whether a configured key strategy is {@code ip}.
	 * @param strategy the strategy as configured
	 * @return whether it keys clients by their address
	 */
	public static boolean isIp(String strategy) {
		return IP.equals(strategy.trim());
	}

	/**
	 * Whether the keys of a configured key strategy may be secrets, and are therefore hashed unless the policy says
	 * otherwise: those of {@code header:}, {@code param:} and {@code expr:}, which read what the client sends (an API
	 * key, a token). Addresses, the global key, principals' names and a {@code bean:} resolver's keys (the
	 * application's own choice) are kept readable.
	 * @param strategy the strategy as configured
	 * @return whether its keys are hashed by default
	 */
	static boolean mayBeSecret(String strategy) {
		String trimmed = strategy.trim();
		return trimmed.startsWith("header:") || trimmed.startsWith("param:") || trimmed.startsWith("expr:");
	}

	/**
	 * The client's IP address as the server reports it, grouped by the {@linkplain IpKeys#DEFAULT default prefixes}.
	 * @return the resolver
	 */
	public static KeyResolver ip() {
		return ip(IpKeys.DEFAULT);
	}

	/**
	 * The client's IP address as the server reports it, grouped by its network prefix.
	 * @param ipKeys the prefixes that identify a client
	 * @return the resolver
	 */
	public static KeyResolver ip(IpKeys ipKeys) {
		return (request) -> ipKeys.keyOf(request.remoteAddress());
	}

	/**
	 * The resolver of a configured key strategy, falling back to the client's IP address.
	 * @param strategy the strategy, such as {@code header:X-Api-Key}
	 * @param beanFactory where {@code bean:} resolvers are looked up
	 * @param ipKeys the prefixes that identify a client by its address
	 * @return the resolver
	 * @throws IllegalArgumentException when the strategy is unknown, incomplete, an unparsable expression, or names
	 * no {@link KeyResolver} bean
	 */
	public static KeyResolver of(String strategy, BeanFactory beanFactory, IpKeys ipKeys) {
		String trimmed = strategy.trim();
		int colon = trimmed.indexOf(':');
		String kind = (colon < 0) ? trimmed : trimmed.substring(0, colon);
		String argument = (colon < 0) ? "" : trimmed.substring(colon + 1).trim();
		return switch (kind) {
			case IP -> noArgument(strategy, argument, ip(ipKeys));
			case "global" -> noArgument(strategy, argument, (request) -> GLOBAL_KEY);
			case "principal" -> orIp(KeyResolver.afterAuthentication(
					noArgument(strategy, argument, RequestKeyResolvers::principal)), ipKeys);
			case "header" -> orIp(header(required(strategy, argument)), ipKeys);
			case "param" -> orIp(parameter(required(strategy, argument)), ipKeys);
			case "expr" -> orIp(expression(strategy, required(strategy, argument)), ipKeys);
			case "bean" -> orIp(bean(strategy, required(strategy, argument), beanFactory), ipKeys);
			default -> throw new IllegalArgumentException("Unknown key strategy '" + strategy
					+ "'; expected ip, global, principal, header:<Name>, param:<name>, expr:<SpEL> or bean:<name>");
		};
	}

	/**
	 * A resolver that falls back to the client's IP address when another finds no key. The fallback key is
	 * {@code ip:<address prefix>}, the {@code ip} key behind {@code ip:}, and a key found that could be mistaken for
	 * one (starting with {@code ip:} or {@code ~}) is prefixed with {@code ~}, so a client cannot spend another's
	 * fallback quota by sending its address as, say, an API key.
	 * @param resolver the resolver
	 * @param ipKeys the prefixes that identify a client by its address
	 * @return the resolver with the fallback, {@linkplain KeyResolver#requiresAuthentication() requiring
	 * authentication} when the resolver does
	 */
	public static KeyResolver orIp(KeyResolver resolver, IpKeys ipKeys) {
		KeyResolver withFallback = new KeyResolver() {

			@Override
			public String resolve(RateLimitRequest request) {
				return orIp(resolver.resolve(request), request, ipKeys);
			}

			@Override
			public CompletionStage<@Nullable String> resolveAsync(RateLimitRequest request) {
				return resolver.resolveAsync(request).thenApply((key) -> orIp(key, request, ipKeys));
			}

		};
		return resolver.requiresAuthentication() ? KeyResolver.afterAuthentication(withFallback) : withFallback;
	}

	/**
	 * The key of a call that its caller computes (a {@code @RateLimited} key expression over the method's arguments):
	 * what it found, else, as a strategy that finds nothing, the client's IP address inside a web request
	 * ({@link #orIp(KeyResolver, IpKeys)}) and the global key outside one. A computation that fails counts the call
	 * the same way; its first failure is logged as a warning, later ones at debug level.
	 * @param description what computes the key, for the log, such as
	 * {@code @RateLimited key '#customerId' on OrderService.place}; also what failures are told apart by
	 * @param key computes the key, {@code null} or empty when it finds none
	 * @param request the web request the call serves, or {@code null} outside one
	 * @param ipKeys the prefixes that identify a client by its address
	 * @return the key
	 */
	public static String keyOf(String description, Supplier<@Nullable String> key, @Nullable RateLimitRequest request,
			IpKeys ipKeys) {
		String found;
		try {
			found = key.get();
		}
		catch (RuntimeException ex) {
			failures.log(description, description + " failed, counting the call under the "
					+ ((request != null) ? "client's IP address" : "global key") + ": " + ex.getMessage());
			found = null;
		}
		if (request != null) {
			return orIp(found, request, ipKeys);
		}
		return StringUtils.hasLength(found) ? found : GLOBAL_KEY;
	}

	private static String orIp(@Nullable String key, RateLimitRequest request, IpKeys ipKeys) {
		if (!StringUtils.hasLength(key)) {
			return FALLBACK_PREFIX + ipKeys.keyOf(request.remoteAddress());
		}
		return (key.startsWith(FALLBACK_PREFIX) || key.startsWith(ESCAPE)) ? ESCAPE + key : key;
	}

	private static KeyResolver header(String name) {
		return (request) -> request.header(name);
	}

	private static KeyResolver parameter(String name) {
		return (request) -> request.queryParameter(name);
	}

	private static @Nullable String principal(RateLimitRequest request) {
		Principal principal = request.principal();
		return (principal != null) ? principal.getName() : null;
	}

	/**
	 * Parses the expression of an {@code expr:} strategy, refusing what it can never evaluate over the request's data
	 * alone.
	 * @param strategy the strategy as configured, for messages
	 * @param source the expression
	 * @return the expression
	 * @throws IllegalArgumentException when it does not parse or uses a type, a constructor, a bean or an assignment
	 */
	static SpelExpression parse(String strategy, String source) {
		SpelExpression expression;
		try {
			expression = PARSER.parseRaw(source);
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException("Strategy '" + strategy + "' is not a valid SpEL expression: "
					+ ex.getMessage(), ex);
		}
		String unsupported = unsupported(expression.getAST());
		if (unsupported != null) {
			throw new IllegalArgumentException("Strategy '" + strategy + "' uses " + unsupported
					+ ", which expr: does not evaluate: it reads the request's properties and calls its methods only");
		}
		return expression;
	}

	private static KeyResolver expression(String strategy, String source) {
		SpelExpression expression = parse(strategy, source);
		return (request) -> {
			try {
				return evaluate(expression, request.nativeRequest(), Map.of());
			}
			catch (RuntimeException ex) {
				failures.log(strategy, "Key strategy '" + strategy + "' failed on a request, counted under the client's "
						+ "IP address instead: " + ex);
				return null;
			}
		};
	}

	/**
	 * Evaluates an {@code expr:} expression over a request: read-only, its instance methods callable, the request as
	 * root and {@code #request}.
	 * @param expression the expression, from {@link #parse(String, String)}
	 * @param nativeRequest the stack's request, or {@code null} outside one
	 * @param variables more variables, such as the client's {@code key}
	 * @return the value as text, or {@code null}
	 * @throws RuntimeException what evaluating throws: SpEL's errors, and as they are, those of a method it calls
	 */
	static @Nullable String evaluate(SpelExpression expression, @Nullable Object nativeRequest,
			Map<String, Object> variables) {
		EvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding()
			.withInstanceMethods()
			.withRootObject(nativeRequest)
			.build();
		context.setVariable("request", nativeRequest);
		variables.forEach(context::setVariable);
		Object value = expression.getValue(context);
		return (value != null) ? value.toString() : null;
	}

	/**
	 * What in an expression can never be evaluated over the request's data alone: the first type reference
	 * ({@code T(...)}), constructor call, bean reference or assignment, or {@code null} when there is none.
	 */
	private static @Nullable String unsupported(SpelNode node) {
		if (node instanceof TypeReference) {
			return "a type reference (" + node.toStringAST() + ")";
		}
		if (node instanceof ConstructorReference) {
			return "a constructor (" + node.toStringAST() + ")";
		}
		if (node instanceof BeanReference) {
			return "a bean reference (" + node.toStringAST() + ")";
		}
		if (node instanceof Assign) {
			return "an assignment (" + node.toStringAST() + ")";
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			String child = unsupported(node.getChild(i));
			if (child != null) {
				return child;
			}
		}
		return null;
	}

	private static KeyResolver bean(String strategy, String name, BeanFactory beanFactory) {
		try {
			return beanFactory.getBean(name, KeyResolver.class);
		}
		catch (NoSuchBeanDefinitionException | BeanNotOfRequiredTypeException ex) {
			throw new IllegalArgumentException("Key strategy '" + strategy + "' names no KeyResolver bean '" + name
					+ "'; declare a bean of type " + KeyResolver.class.getName() + " named '" + name + "'", ex);
		}
	}

	private static KeyResolver noArgument(String strategy, String argument, KeyResolver resolver) {
		if (!argument.isEmpty()) {
			throw new IllegalArgumentException("Key strategy '" + strategy + "' takes no argument");
		}
		return resolver;
	}

	private static String required(String strategy, String argument) {
		if (argument.isEmpty()) {
			throw new IllegalArgumentException("Key strategy '" + strategy + "' needs a name after the colon");
		}
		return argument;
	}

}
