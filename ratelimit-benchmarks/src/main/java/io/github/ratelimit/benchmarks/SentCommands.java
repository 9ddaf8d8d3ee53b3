package io.github.ratelimit.benchmarks;

import java.util.concurrent.atomic.LongAdder;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * The Redis commands one client sent, counted in the bytes it wrote: a handler at the head of each of its Netty
 * channels (next to the socket, so it sees what the client's encoder wrote) reads the RESP arrays going out, one
 * command each. Counted on the client rather than in {@code INFO commandstats}, which also counts every command a
 * script calls, so that a script call counts once whatever it does inside, for every client library alike (Lettuce
 * through {@code NettyCustomizer}, Redisson through its {@code NettyHook}).
 */
final class SentCommands {

	private final LongAdder commands = new LongAdder();

	/**
	 * Counts what a channel sends from now on.
	 * @param channel a channel of the client, before it has written anything
	 */
	void count(Channel channel) {
		channel.pipeline().addFirst("benchmark-sent-commands", new Counter());
	}

	/**
	 * The commands sent so far on every channel counted.
	 * @return how many
	 */
	long sent() {
		return this.commands.sum();
	}

	/**
	 * Reads one channel's outgoing bytes as RESP requests (arrays of bulk strings), across writes.
	 */
	private final class Counter extends ChannelOutboundHandlerAdapter {

		/** What the next byte is: an array's {@code *}, its length, a bulk string's {@code $}, its length, its body. */
		private State state = State.ARRAY;

		private long number;

		private long bulks;

		private long skip;

		@Override
		public void write(ChannelHandlerContext context, Object message, ChannelPromise promise) throws Exception {
			if (message instanceof ByteBuf bytes) {
				read(bytes);
			}
			super.write(context, message, promise);
		}

		private void read(ByteBuf bytes) {
			int index = bytes.readerIndex();
			int end = bytes.writerIndex();
			while (index < end) {
				if (this.state == State.BODY) {
					long step = Math.min(this.skip, end - index);
					index += (int) step;
					this.skip -= step;
					if (this.skip == 0) {
						this.state = (--this.bulks > 0) ? State.BULK : State.ARRAY;
					}
					continue;
				}
				byte next = bytes.getByte(index++);
				switch (this.state) {
					case ARRAY, BULK -> {
						this.number = 0;
						this.state = (this.state == State.ARRAY) ? State.ARRAY_LENGTH : State.BULK_LENGTH;
					}
					case ARRAY_LENGTH -> {
						if (next == '\n') {
							SentCommands.this.commands.increment();
							this.bulks = this.number;
							this.state = (this.bulks > 0) ? State.BULK : State.ARRAY;
						}
						else if (next != '\r') {
							this.number = 10 * this.number + (next - '0');
						}
					}
					case BULK_LENGTH -> {
						if (next == '\n') {
							this.skip = this.number + 2;
							this.state = State.BODY;
						}
						else if (next != '\r') {
							this.number = 10 * this.number + (next - '0');
						}
					}
					default -> throw new IllegalStateException(this.state.name());
				}
			}
		}

	}

	private enum State {

		ARRAY, ARRAY_LENGTH, BULK, BULK_LENGTH, BODY

	}

}
