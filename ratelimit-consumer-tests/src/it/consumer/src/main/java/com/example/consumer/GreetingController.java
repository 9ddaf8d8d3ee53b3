package com.example.consumer;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Greets, within the limits of the policy {@code greeting} in application.yml. */
@RestController
public class GreetingController {

	@GetMapping("/greeting")
	@RateLimited("greeting")
	public String greeting() {
		return "Hello";
	}

}
