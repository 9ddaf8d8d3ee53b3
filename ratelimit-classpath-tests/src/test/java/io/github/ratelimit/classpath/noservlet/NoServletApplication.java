package io.github.ratelimit.classpath.noservlet;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/**
 * A non-web application whose only rate limit is an annotated service method.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class NoServletApplication {

	@Service
	public static class ReportService {

		@RateLimited(limits = "3/1h")
		public String report() {
			return "report";
		}

	}

}
