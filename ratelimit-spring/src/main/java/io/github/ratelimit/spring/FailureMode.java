package io.github.ratelimit.spring;

/**
 * What a policy decides when its backend cannot answer within the decision timeout.
 */
public enum FailureMode {

	/**
	 * Allow the request, count it and log a warning: availability over enforcement.
	 */
	OPEN,

	/**
	 * Refuse the request with 503 Service Unavailable: enforcement over availability.
	 */
	CLOSED,

	/**
	 * Decide with an in-process limiter, each limit divided by the number of instances.
	 */
	LOCAL

}
