package io.github.ratelimit.sample.worker;

import java.net.URI;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The worker's job: where the partner API is and how many calls a second this instance asks for.
 * @param partnerUrl the partner API's URL, which every call gets
 * @param demand calls a second this instance starts, whatever the rate admits (35 by default: with three
 * instances, five times the shared rate of 20)
 */
@ConfigurationProperties("sample.worker")
public record WorkerProperties(@DefaultValue("http://localhost:9090/partner") URI partnerUrl,
		@DefaultValue("35") int demand) {

	/**
	 * Checks the demand.
	 * @param partnerUrl the partner API's URL
	 * @param demand calls a second this instance starts
	 */
	public WorkerProperties {
		if (demand < 1 || demand > 1000) {
			throw new IllegalArgumentException(
					"Invalid sample.worker.demand " + demand + ": give 1 to 1000 calls a second");
		}
	}

}
