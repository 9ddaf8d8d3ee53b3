package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.util.List;

/**
 * One {@link RateLimited} annotation as it applies to a method of a bean class, its attributes as written.
 *
 * @param policy the policy name (the annotation's, or {@code SimpleClassName.method})
 * @param limits the annotation's limits, empty when it names a configured policy
 * @param algorithm the annotation's algorithm, empty for the default
 * @param key the key expression, empty for the default
 * @param cost the cost expression or number, empty for the default
 * @param maxWait the longest wait, empty for the policy's
 * @param method the most specific method
 * @param targetClass the bean class
 * @param classLevel whether the annotation is on the class (or a supertype) rather than on the method
 */
record RateLimitedDeclaration(String policy, List<String> limits, String algorithm, String key, String cost,
		String maxWait, Method method, Class<?> targetClass, boolean classLevel) {

	/**
	 * The method as the user knows it, for messages: {@code com.example.Orders.list}.
	 * @return the class and method name
	 */
	public String methodName() {
		return this.targetClass.getName() + "." + this.method.getName();
	}

}
