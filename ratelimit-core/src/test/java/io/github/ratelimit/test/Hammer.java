package io.github.ratelimit.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Real concurrency for exactness tests: {@code instances x threadsPerInstance} threads, released at once, each
 * making {@code attemptsPerThread} attempts, and the admissions counted.
 */
public final class Hammer {

	private Hammer() {
	}

	/**
	 * Runs the attempts and counts the admissions.
	 * @param instances the number of instances (as separate app servers would be)
	 * @param threadsPerInstance the threads of each instance
	 * @param attemptsPerThread the attempts of each thread
	 * @param attempt one attempt by an instance, true when admitted
	 * @return the number admitted
	 * @throws Exception when an attempt fails
	 */
	public static int admitted(int instances, int threadsPerInstance, int attemptsPerThread, Attempt attempt)
			throws Exception {
		return admitted(instances, threadsPerInstance, (instance) -> {
			int admitted = 0;
			for (int i = 0; i < attemptsPerThread; i++) {
				admitted += attempt.admit(instance) ? 1 : 0;
			}
			return admitted;
		});
	}

	/**
	 * Runs one worker per thread, each deciding itself when it has made its attempts, and adds up the admissions.
	 * @param instances the number of instances (as separate app servers would be)
	 * @param threadsPerInstance the threads of each instance
	 * @param worker the attempts of one thread of an instance, returning how many were admitted
	 * @return the number admitted
	 * @throws Exception when an attempt fails
	 */
	public static int admitted(int instances, int threadsPerInstance, Worker worker) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(instances * threadsPerInstance);
		CountDownLatch start = new CountDownLatch(1);
		try {
			List<Future<Integer>> results = new ArrayList<>();
			for (int instance = 0; instance < instances; instance++) {
				int server = instance;
				for (int thread = 0; thread < threadsPerInstance; thread++) {
					Callable<Integer> attempts = () -> {
						start.await();
						return worker.attempts(server);
					};
					results.add(executor.submit(attempts));
				}
			}
			start.countDown();
			int admitted = 0;
			for (Future<Integer> result : results) {
				admitted += result.get(60, TimeUnit.SECONDS);
			}
			return admitted;
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * One attempt.
	 */
	@FunctionalInterface
	public interface Attempt {

		/**
		 * Makes one attempt.
		 * @param instance the index of the instance making it
		 * @return whether it was admitted
		 * @throws Exception when it fails
		 */
		boolean admit(int instance) throws Exception;

	}

	/**
	 * The attempts of one thread.
	 */
	@FunctionalInterface
	public interface Worker {

		/**
		 * Makes the thread's attempts.
		 * @param instance the index of the instance making them
		 * @return how many were admitted
		 * @throws Exception when one fails
		 */
		int attempts(int instance) throws Exception;

	}

}
