package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Finds the {@link RateLimited} annotations of a method called on a bean class, as Spring finds
 * {@code @Transactional}: on the most specific method and every method it overrides or implements (superclasses and
 * interfaces), and, for a public method, on the class and its supertypes. One policy is declared once per method,
 * however many places name it. Resolved once per method and class, for the pointcut, the start-up check and every
 * call alike.
 */
final class RateLimitedAnnotations {

	private final Map<MethodClassKey, List<RateLimitedDeclaration>> cache = new ConcurrentHashMap<>();

	/**
	 * The annotations that apply to a method called on a class: class-level ones first, then the method's; for a
	 * policy named in several places, the declaration closest to the class (its method before an interface's, a
	 * method's before a class's).
	 * @param method the method, as declared anywhere in the class's hierarchy
	 * @param targetClass the class of the bean it is called on
	 * @return the declarations, empty when the method is not rate limited
	 */
	List<RateLimitedDeclaration> find(Method method, Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		Method specific = AopUtils.getMostSpecificMethod(method, userClass);
		return this.cache.computeIfAbsent(new MethodClassKey(specific, userClass),
				(key) -> resolve(specific, userClass));
	}

	/**
	 * Whether a class could carry {@link RateLimited} anywhere, a cheap filter before looking at its methods.
	 * @param type the class
	 * @return whether it is a candidate
	 */
	boolean isCandidate(Class<?> type) {
		return AnnotationUtils.isCandidateClass(type, RateLimited.class);
	}

	private static List<RateLimitedDeclaration> resolve(Method method, Class<?> targetClass) {
		Map<String, RateLimitedDeclaration> onMethod = declarations(
				MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY), method, targetClass, false);
		Map<String, RateLimitedDeclaration> onClass = coveredByClassLevel(method) ? declarations(
				MergedAnnotations.from(targetClass, SearchStrategy.TYPE_HIERARCHY), method, targetClass, true)
				: Map.of();
		List<RateLimitedDeclaration> declarations = new ArrayList<>();
		onClass.forEach((policy, declaration) -> {
			if (!onMethod.containsKey(policy)) {
				declarations.add(declaration);
			}
		});
		declarations.addAll(onMethod.values());
		return List.copyOf(declarations);
	}

	private static Map<String, RateLimitedDeclaration> declarations(MergedAnnotations annotations, Method method,
			Class<?> targetClass, boolean classLevel) {
		Map<String, RateLimitedDeclaration> declarations = new LinkedHashMap<>();
		annotations.stream(RateLimited.class).forEach((annotation) -> {
			RateLimitedDeclaration declaration = declaration(annotation, method, targetClass, classLevel);
			declarations.putIfAbsent(declaration.policy(), declaration);
		});
		return declarations;
	}

	private static RateLimitedDeclaration declaration(MergedAnnotation<RateLimited> annotation, Method method,
			Class<?> targetClass, boolean classLevel) {
		String name = annotation.getString("name");
		return new RateLimitedDeclaration(
				StringUtils.hasText(name) ? name : targetClass.getSimpleName() + "." + method.getName(),
				List.of(annotation.getStringArray("limits")), annotation.getString("algorithm"),
				annotation.getString("key"), annotation.getString("cost"), annotation.getString("maxWait"), method, targetClass, classLevel);
	}

	/** A class-level annotation covers the public instance methods the class declares or inherits, not Object's. */
	private static boolean coveredByClassLevel(Method method) {
		int modifiers = method.getModifiers();
		return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers)
				&& method.getDeclaringClass() != Object.class;
	}

}
