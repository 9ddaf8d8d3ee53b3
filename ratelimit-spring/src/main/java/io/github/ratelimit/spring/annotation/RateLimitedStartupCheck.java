package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every {@link RateLimited} method of the application's beans once all singletons exist, with the resolution
 * calls use: an invalid annotation (unparsable limits or expressions, an unknown algorithm, a name with neither
 * configuration nor limits, one name with two sets of limits, a constant cost outside 1..capacity) or one that can
 * never be enforced (a private, static or final method; a bean that is not proxied, as when auto-proxying is off; a
 * JDK proxy whose interfaces lack the method) stops start-up, naming the method. Then it reports the names of every
 * policy the annotations apply.
 */
final class RateLimitedStartupCheck implements SmartInitializingSingleton, BeanFactoryAware {

	private final RateLimitedAnnotations annotations;

	private final RateLimitedPolicies policies;

	private final Consumer<Set<String>> appliedPolicies;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	/**
	 * Creates the check.
	 * @param policies the policies of annotated methods, and where their annotations are found
	 * @param appliedPolicies told the names of the policies the annotations apply, once every bean is checked
	 */
	RateLimitedStartupCheck(RateLimitedPolicies policies, Consumer<Set<String>> appliedPolicies) {
		this.annotations = policies.annotations();
		this.policies = policies;
		this.appliedPolicies = appliedPolicies;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory listable) ? listable : null;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory factory = this.beanFactory;
		if (factory == null) {
			return;
		}
		Set<String> applied = new LinkedHashSet<>();
		for (String name : factory.getBeanDefinitionNames()) {
			if (factory.getBeanDefinition(name).getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
				continue;
			}
			Object bean = createdSingleton(factory, name);
			Class<?> type = (bean != null) ? AopProxyUtils.ultimateTargetClass(bean) : factory.getType(name, false);
			if (type != null && this.annotations.isCandidate(type)) {
				check(ClassUtils.getUserClass(type), bean, applied);
			}
		}
		this.appliedPolicies.accept(applied);
	}

	private void check(Class<?> type, @Nullable Object bean, Set<String> applied) {
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
			List<RateLimitedDeclaration> declarations = this.annotations.find(method, type);
			if (declarations.isEmpty()) {
				continue;
			}
			boolean onMethod = declarations.stream().anyMatch((declaration) -> !declaration.classLevel());
			String problem = whyNeverEnforced(method, bean, onMethod);
			if (problem != null) {
				throw new InvalidRateLimitedException(declarations.get(0).methodName(), problem,
						"call it through a public, non-final instance method of a Spring bean, with auto-proxying on "
								+ "(spring.aop.auto, Spring Boot's default), or remove the annotation",
						null);
			}
			this.policies.of(method, type);
			declarations.forEach((declaration) -> applied.add(declaration.policy()));
		}
	}

	/**
	 * Why a rate limited method can never be enforced, or {@code null}. A class-level annotation covers the methods
	 * a proxy can intercept and passes over the others; one on the method itself must be enforceable.
	 */
	private static @Nullable String whyNeverEnforced(Method method, @Nullable Object bean, boolean onMethod) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers)) {
			return "the method is " + (Modifier.isPrivate(modifiers) ? "private" : "static")
					+ ", so no call of it goes through a proxy and the limit would never be enforced";
		}
		if (bean == null) {
			return null;
		}
		if (!(bean instanceof Advised advised) || !advisedByUs(advised)) {
			return "the bean is not proxied for @RateLimited (is auto-proxying off, spring.aop.auto=false?), so the "
					+ "limit would never be enforced";
		}
		if (!onMethod) {
			return null;
		}
		if (AopUtils.isJdkDynamicProxy(bean)) {
			return onAnInterface(method, advised.getProxiedInterfaces()) ? null
					: "the bean is a JDK dynamic proxy and none of its interfaces declares the method, so no call of "
							+ "it goes through the proxy (declare it on the interface, or use class-based proxies: "
							+ "spring.aop.proxy-target-class=true)";
		}
		return Modifier.isFinal(modifiers)
				? "the method is final, so the class-based proxy cannot intercept it and the limit would never be "
						+ "enforced"
				: null;
	}

	private static boolean advisedByUs(Advised advised) {
		return Arrays.stream(advised.getAdvisors()).anyMatch(RateLimitedAdvisor.class::isInstance);
	}

	private static boolean onAnInterface(Method method, Class<?>[] interfaces) {
		for (Class<?> type : interfaces) {
			if (ClassUtils.hasMethod(type, method.getName(), method.getParameterTypes())) {
				return true;
			}
		}
		return false;
	}

	/** The bean, when it is a singleton already created (not a factory's product, not a scoped proxy). */
	private static @Nullable Object createdSingleton(ConfigurableListableBeanFactory factory, String name) {
		if (!factory.containsSingleton(name) || factory.isFactoryBean(name)) {
			return null;
		}
		Object bean = factory.getSingleton(name);
		return (bean instanceof ScopedObject) ? null : bean;
	}

}
