package io.github.ratelimit.sample.worker;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A worker without a web stack (no spring-web, no servlet, no HTTP server on its class path): its
 * {@link PartnerJob} calls a partner API through the {@link PartnerClient}, whose calls wait for their permits of the
 * rate all instances share. The same jar runs the stub partner API, {@link PartnerStub}, with {@code --stub}.
 */
@SpringBootApplication
@EnableConfigurationProperties(WorkerProperties.class)
public class SampleWorkerApplication {

	/**
	 * Runs the worker, or with {@code --stub} (and {@code --port=9090}) the stub partner API instead, without Spring.
	 * @param args Spring Boot's command line arguments ({@code --sample.worker.demand=35}, ...), or {@code --stub}
	 * and {@code --port=<port>}
	 * @throws Exception if the stub cannot listen on its port
	 */
	public static void main(String[] args) throws Exception {
		if (Arrays.asList(args).contains("--stub")) {
			PartnerStub.main(args);
			return;
		}
		SpringApplication.run(SampleWorkerApplication.class, args);
	}

}
