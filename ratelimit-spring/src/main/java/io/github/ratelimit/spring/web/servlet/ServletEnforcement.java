package io.github.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.util.List;

import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatusCode;
import org.springframework.web.ErrorResponse;

/**
 * Applies policies to a servlet request, for the servlet filter and the WebMVC gateway's route filters, which differ
 * only in which policies apply: decides them through the chain, the calling thread waiting once for the verdict,
 * shows an admitted request's rate limit headers on the response at once, and answers a refused one with its
 * {@link Refusal}: the rate limit headers, {@code Retry-After} and the problem body, 429, or 503 when a fail-closed
 * policy cannot reach its backend. What it charged is kept with the request
 * ({@link io.github.ratelimit.spring.RequestRateLimits}), so that nothing else charges it again in that request.
 */
public final class ServletEnforcement {

	private final RateLimitChain chain;

	private final RateLimitHeaders headers;

	private final ProblemResponseWriter problems = new ProblemResponseWriter();

	/**
	 * Creates the enforcement.
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 */
	public ServletEnforcement(RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		this.chain = new RateLimitChain(enforcer);
		this.headers = headers;
	}

	/**
	 * Decides a request's policies. The rate limit headers of an admitted request are set on the response at once;
	 * a refused one is answered by writing the refusal.
	 * @param request the request
	 * @param response its response, not yet committed
	 * @param steps the policies that apply, in order
	 * @return the refusal to answer the request with, or {@code null} when it is admitted
	 */
	public @Nullable Refusal enforce(HttpServletRequest request, HttpServletResponse response,
			List<? extends RateLimitChain.Step> steps) {
		RateLimitRequest limited = new ServletRateLimitRequest(request);
		RateLimitChain.Verdict verdict = this.chain.await(limited, steps, true);
		RateLimitOutcome refusal = verdict.refusal();
		if (refusal != null) {
			return new Refusal(refusal, refusal.refusal(limited.uri()));
		}
		RateLimitOutcome shown = verdict.shown();
		if (shown != null) {
			this.headers.write(shown, response::setHeader);
		}
		return null;
	}

	/**
	 * A refused request's answer.
	 */
	public final class Refusal {

		private final RateLimitOutcome outcome;

		private final ErrorResponse response;

		private Refusal(RateLimitOutcome outcome, ErrorResponse response) {
			this.outcome = outcome;
			this.response = response;
		}

		/**
		 * The refusal's status: 429, or 503 when a fail-closed policy could not reach its backend.
		 * @return the status
		 */
		public HttpStatusCode status() {
			return this.response.getStatusCode();
		}

		/**
		 * Writes the refusal: its rate limit headers (replacing those an earlier filter set), {@code Retry-After},
		 * status and problem body.
		 * @param response the servlet response, not yet committed
		 * @throws IOException when the body cannot be written
		 */
		public void write(HttpServletResponse response) throws IOException {
			ServletEnforcement.this.headers.write(this.outcome, response::setHeader);
			ServletEnforcement.this.problems.write(this.response, response);
		}

	}

}
