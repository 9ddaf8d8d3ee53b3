package io.github.ratelimit.docs.annotation;

// tag::return-types[]
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.ratelimit.spring.annotation.RateLimited;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

@Service
public class Catalog {

	@RateLimited(limits = "100/1m") // blocking: decided before the call, a refusal is thrown
	public Product product(String id) {
		return new Product(id);
	}

	@RateLimited(limits = "100/1m") // decided on each subscription, a refusal is an error signal
	public Mono<Product> productReactive(String id) {
		return Mono.fromSupplier(() -> new Product(id));
	}

	@RateLimited(limits = "10/1m") // one subscription is one call, however many elements it emits
	public Flux<Product> products(List<String> ids) {
		return Flux.fromIterable(ids).map(Product::new);
	}

	@RateLimited(limits = "100/1m") // returns at once; a refusal completes the future exceptionally
	public CompletableFuture<Product> productLater(String id) {
		return CompletableFuture.supplyAsync(() -> new Product(id));
	}

	public record Product(String id) {
	}

}
// end::return-types[]
