package io.github.ratelimit.docs.plansandoverrides;

// tag::customer-plans[]
import java.time.Duration;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.github.ratelimit.spring.PlanResolver;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class CustomerPlansConfiguration {

	@Bean // plan: bean:customerPlans
	PlanResolver customerPlans(CustomerRepository customers) {
		LoadingCache<String, String> plans = Caffeine.newBuilder()
			.maximumSize(100_000)
			.expireAfterWrite(Duration.ofMinutes(1)) // a changed plan applies within a minute
			.build((apiKey) -> customers.findByApiKey(apiKey).map(Customer::plan).orElse(null));
		return (key, request) -> plans.get(key); // null: the policy's default plan
	}

}
// end::customer-plans[]
