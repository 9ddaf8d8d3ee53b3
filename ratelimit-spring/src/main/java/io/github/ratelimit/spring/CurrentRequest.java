package io.github.ratelimit.spring;

import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

/**
 * The web request the calling thread is serving, for {@code @RateLimited} methods called inside one. Each web stack
 * provides its own; outside a web application there is none.
 */
public interface CurrentRequest {

	/** No web request: for applications without a web stack. */
	CurrentRequest NONE = new CurrentRequest() {

		@Override
		public @Nullable RateLimitRequest request() {
			return null;
		}

		@Override
		public @Nullable BiConsumer<String, String> responseHeaders() {
			return null;
		}

	};

	/**
	 * The request the calling thread serves.
	 * @return the request, or {@code null} outside a web request
	 */
	@Nullable RateLimitRequest request();

	/**
	 * A setter of response headers for that request.
	 * @return the setter, or {@code null} outside a web request or once the response is committed
	 */
	@Nullable BiConsumer<String, String> responseHeaders();

}
