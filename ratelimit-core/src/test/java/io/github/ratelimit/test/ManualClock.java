package io.github.ratelimit.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock the test moves by hand, forwards or backwards.
 */
public final class ManualClock extends Clock {

	private volatile Instant now;

	public ManualClock(Instant now) {
		this.now = now;
	}

	public void advance(Duration duration) {
		this.now = this.now.plus(duration);
	}

	public void advanceMicros(long micros) {
		advance(Duration.ofNanos(Math.multiplyExact(micros, 1000L)));
	}

	public void set(Instant now) {
		this.now = now;
	}

	@Override
	public Instant instant() {
		return this.now;
	}

	@Override
	public ZoneOffset getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		return this;
	}

}
