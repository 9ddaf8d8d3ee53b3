package io.github.ratelimit.classpath.noaspectj;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/**
 * An application whose rate limits are annotated service methods, one on an interface.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class NoAspectJApplication {

	/**
	 * A service whose interface carries the annotation.
	 */
	public interface Greeter {

		@RateLimited(name = "greetings", limits = "2/1h")
		String greet();

	}

	@Service
	public static class ReportService implements Greeter {

		@RateLimited(limits = "3/1h")
		public String report() {
			return "report";
		}

		@Override
		public String greet() {
			return "hello";
		}

	}

}
