package io.github.ratelimit.test;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An HTTP/1.1 response exactly as a server sent it, read from a plain socket: the status line, every header line in
 * order with its name as sent, and the body.
 *
 * @param statusLine the status line
 * @param headers every header line, in order
 * @param body the body, as UTF-8 text
 */
public record WireResponse(String statusLine, List<Map.Entry<String, String>> headers, String body) {

	/**
	 * Sends {@code GET path} to a server on this machine, asking it to close the connection after the response.
	 * @param port the server's port
	 * @param path the path and query
	 * @return the response
	 */
	public static WireResponse get(int port, String path) {
		return get(port, path, new String[0]);
	}

	/**
	 * Sends {@code GET path} with more header lines to a server on this machine, asking it to close the connection
	 * after the response.
	 * @param port the server's port
	 * @param path the path and query
	 * @param headers names and values of more header lines, alternately
	 * @return the response
	 */
	public static WireResponse get(int port, String path, String... headers) {
		return send(port, "GET", path, headers);
	}

	/**
	 * Sends a request without a body to a server on this machine, asking it to close the connection after the
	 * response.
	 * @param port the server's port
	 * @param method the request's method
	 * @param path the path and query
	 * @param headers names and values of more header lines, alternately
	 * @return the response
	 */
	public static WireResponse send(int port, String method, String path, String... headers) {
		return sendJson(port, method, path, null, headers);
	}

	/**
	 * Sends a request with a JSON body to a server on this machine, asking it to close the connection after the
	 * response.
	 * @param port the server's port
	 * @param method the request's method
	 * @param path the path and query
	 * @param json the body, sent as {@code application/json}, or {@code null} for none
	 * @param headers names and values of more header lines, alternately
	 * @return the response
	 */
	public static WireResponse sendJson(int port, String method, String path, String json, String... headers) {
		StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n");
		for (int i = 0; i < headers.length; i += 2) {
			request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
		}
		byte[] body = (json != null) ? json.getBytes(StandardCharsets.UTF_8) : new byte[0];
		if (json != null) {
			request.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
		}
		request.append("Connection: close\r\n\r\n");
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(30_000);
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
			out.write(body);
			out.flush();
			return parse(readAll(socket.getInputStream()));
		}
		catch (SocketTimeoutException ex) {
			// the servers of these tests run in this JVM: show where the unanswered request is
			throw new UncheckedIOException(method + " " + path + " on port " + port + " was not answered in 30 s; "
					+ "threads of this JVM:\n" + threadDump(), ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String threadDump() {
		StringBuilder dump = new StringBuilder();
		Thread.getAllStackTraces().forEach((thread, stack) -> {
			dump.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
			for (StackTraceElement frame : stack) {
				dump.append("\tat ").append(frame).append('\n');
			}
		});
		return dump.toString();
	}

	/**
	 * Reads the next response of a kept-alive connection, its body framed by its {@code Content-Length}.
	 * @param in the connection's input, read no further than the response
	 * @return the response
	 * @throws IOException when the connection fails or closes, or its read timeout passes first
	 */
	public static WireResponse next(InputStream in) throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
			int next = in.read();
			if (next < 0) {
				throw new EOFException("Connection closed after " + head.size() + " bytes of a response");
			}
			head.write(next);
		}
		WireResponse headers = parse(head.toByteArray());
		String length = headers.value("Content-Length");
		assertThat(length).as("Content-Length of %s", headers.statusLine()).isNotNull();
		byte[] body = in.readNBytes(Integer.parseInt(length));
		return new WireResponse(headers.statusLine(), headers.headers(), new String(body, StandardCharsets.UTF_8));
	}

	private static byte[] readAll(InputStream in) throws IOException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		in.transferTo(bytes);
		return bytes.toByteArray();
	}

	private static WireResponse parse(byte[] bytes) {
		String text = new String(bytes, StandardCharsets.UTF_8);
		int end = text.indexOf("\r\n\r\n");
		assertThat(end).as("end of the header section").isPositive();
		String[] lines = text.substring(0, end).split("\r\n", -1);
		List<Map.Entry<String, String>> headers = new ArrayList<>();
		for (int i = 1; i < lines.length; i++) {
			int colon = lines[i].indexOf(':');
			assertThat(colon).as("header line '%s'", lines[i]).isPositive();
			headers.add(Map.entry(lines[i].substring(0, colon), lines[i].substring(colon + 1).strip()));
		}
		WireResponse response = new WireResponse(lines[0], List.copyOf(headers), text.substring(end + 4));
		return (response.values("Transfer-Encoding").contains("chunked")) ? response.dechunked() : response;
	}

	private WireResponse dechunked() {
		StringBuilder body = new StringBuilder();
		String rest = this.body;
		while (true) {
			int lineEnd = rest.indexOf("\r\n");
			int size = Integer.parseInt(rest.substring(0, lineEnd).strip(), 16);
			if (size == 0) {
				return new WireResponse(this.statusLine, this.headers, body.toString());
			}
			body.append(rest, lineEnd + 2, lineEnd + 2 + size);
			rest = rest.substring(lineEnd + 2 + size + 2);
		}
	}

	/**
	 * The status code.
	 * @return the status
	 */
	public int status() {
		return Integer.parseInt(this.statusLine.split(" ")[1]);
	}

	/**
	 * The values of every line of a header, in order.
	 * @param name the header's name, in any case
	 * @return its values, empty when it was not sent
	 */
	public List<String> values(String name) {
		return this.headers.stream().filter((header) -> header.getKey().equalsIgnoreCase(name))
			.map(Map.Entry::getValue)
			.toList();
	}

	/**
	 * The value of a header sent at most once.
	 * @param name the header's name, in any case
	 * @return its value, or {@code null} when it was not sent
	 */
	public String value(String name) {
		List<String> values = values(name);
		assertThat(values).as("lines of header %s", name).hasSizeLessThanOrEqualTo(1);
		return values.isEmpty() ? null : values.get(0);
	}

	/**
	 * The response as it was sent (the chunked framing of a body aside).
	 * @return the status line, the header lines and the body
	 */
	@Override
	public String toString() {
		StringBuilder text = new StringBuilder(this.statusLine).append('\n');
		this.headers.forEach((header) -> text.append(header.getKey()).append(": ").append(header.getValue()).append('\n'));
		return text.append('\n').append(this.body).toString();
	}

}
