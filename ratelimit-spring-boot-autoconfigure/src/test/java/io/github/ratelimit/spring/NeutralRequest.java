package io.github.ratelimit.spring;

import java.net.URI;
import java.security.Principal;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A request as the chain sees it, whatever the stack, for the chain's cases that are tested once: what each stack
 * puts in this view is its adapter's contract ({@code RateLimitRequestContract}). Its native request answers
 * {@code getHeader(name)}, as a servlet request does, for {@code expr:} strategies.
 */
public final class NeutralRequest implements RateLimitRequest {

	private final String remoteAddress;

	private final Map<String, String> headers = new HashMap<>();

	private final Map<String, String> query = new HashMap<>();

	private final Map<String, Object> attributes = new HashMap<>();

	private @Nullable Principal principal;

	private NeutralRequest(String remoteAddress) {
		this.remoteAddress = remoteAddress;
	}

	/**
	 * A request from a client address, with no header, query or user.
	 * @param address the connection's remote address
	 * @return the request
	 */
	public static NeutralRequest from(String address) {
		return new NeutralRequest(address);
	}

	/**
	 * Adds a header.
	 * @param name its name
	 * @param value its value
	 * @return this request
	 */
	public NeutralRequest header(String name, String value) {
		this.headers.put(name, value);
		return this;
	}

	/**
	 * Adds a query parameter.
	 * @param name its name
	 * @param value its value
	 * @return this request
	 */
	public NeutralRequest query(String name, String value) {
		this.query.put(name, value);
		return this;
	}

	/**
	 * Makes the request an authenticated user's.
	 * @param name the user's name
	 * @return this request
	 */
	public NeutralRequest user(String name) {
		this.principal = () -> name;
		return this;
	}

	@Override
	public String method() {
		return "GET";
	}

	@Override
	public @Nullable String header(String name) {
		return this.headers.get(name);
	}

	@Override
	public @Nullable String queryParameter(String name) {
		return this.query.get(name);
	}

	@Override
	public String remoteAddress() {
		return this.remoteAddress;
	}

	@Override
	public @Nullable Principal principal() {
		return this.principal;
	}

	@Override
	public URI uri() {
		return URI.create("/orders");
	}

	@Override
	public Object nativeRequest() {
		return new NativeRequest(this.headers);
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> T attribute(String name, Supplier<T> ifAbsent) {
		return (T) this.attributes.computeIfAbsent(name, (key) -> ifAbsent.get());
	}

	/**
	 * What {@code expr:} reads in these tests: the request's headers by name.
	 *
	 * @param headers the headers
	 */
	public record NativeRequest(Map<String, String> headers) {

		/**
		 * A header, as {@code HttpServletRequest.getHeader} answers.
		 * @param name its name
		 * @return its value, or {@code null}
		 */
		public @Nullable String getHeader(String name) {
			return this.headers.get(name);
		}

	}

}
