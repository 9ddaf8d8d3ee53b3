/**
 * A sample worker without a web stack: a job whose calls to a partner API wait for their permits of a rate shared by
 * every instance, and the stub partner API it calls.
 */
@NullMarked
package io.github.ratelimit.sample.worker;

import org.jspecify.annotations.NullMarked;
