package io.github.ratelimit.spring;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;

/**
 * Logs a failure that can repeat on every request (a key expression failing on some input) as a warning (or an
 * error) the first time per source, and at debug level after that, so a client cannot flood the log.
 */
final class FirstWarning {

	private final Log logger;

	private final Set<Object> warned = ConcurrentHashMap.newKeySet();

	/**
	 * Creates a logger of first warnings.
	 * @param logger where messages go
	 */
	FirstWarning(Log logger) {
		this.logger = logger;
	}

	/**
	 * Logs a failure: as a warning if it is the first of its source, else at debug level.
	 * @param source what failed, such as a key strategy or an annotated method
	 * @param message the message
	 */
	void log(Object source, String message) {
		if (this.warned.add(source)) {
			this.logger.warn(message + " (logged once; further failures at debug level)");
		}
		else if (this.logger.isDebugEnabled()) {
			this.logger.debug(message);
		}
	}

	/**
	 * Logs a failure that is a bug: as an error with its stack trace if it is the first of its source, else at debug
	 * level.
	 * @param source what failed, such as a policy and the type of its error
	 * @param message the message
	 * @param error the error
	 */
	void error(Object source, String message, Throwable error) {
		if (this.warned.add(source)) {
			this.logger.error(message + " (logged once; further failures at debug level)", error);
		}
		else if (this.logger.isDebugEnabled()) {
			this.logger.debug(message, error);
		}
	}

}
