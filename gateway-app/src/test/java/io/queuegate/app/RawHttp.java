package io.queuegate.app;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP/1.1 written by hand on a socket, as an attacker's page or tool sends it: the JDK's client
 * will not send a {@code Host} of the caller's choosing, and a DNS-rebinding page does exactly
 * that (its browser believes {@code evil.example} is the gateway's address). One request per
 * connection, kept open until the answer is read: a server that refuses a request before reading
 * its body may close at once, and a close with unread bytes resets the connection, answer and all.
 */
final class RawHttp {

    private RawHttp() {
    }

    /** An answer: status, headers (names in lower case, first value) and the body, de-chunked. */
    record Answer(int status, Map<String, String> headers, String body) {

        Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + body;
        }
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends {@code method path} to 127.0.0.1:{@code port}. {@code headers} are name-value pairs; a
     * {@code Host} among them replaces the default {@code 127.0.0.1:port}.
     */
    static Answer send(int port, String method, String path, String body, String... headers) {
        List<String[]> lines = new ArrayList<>();
        boolean host = false;
        for (int i = 0; i + 1 < headers.length; i += 2) {
            lines.add(new String[] { headers[i], headers[i + 1] });
            host |= headers[i].equalsIgnoreCase("Host");
        }
        StringBuilder request = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n");
        if (!host) {
            request.append("Host: 127.0.0.1:").append(port).append("\r\n");
        }
        for (String[] line : lines) {
            request.append(line[0]).append(": ").append(line[1]).append("\r\n");
        }
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            request.append("Content-Length: ").append(content.length).append("\r\n");
        }
        request.append("\r\n");
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            return read(new java.io.BufferedInputStream(socket.getInputStream()));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(method + " " + path + " on port " + port + " failed", ex);
        }
    }

    private static Answer read(InputStream in) throws IOException {
        String statusLine = line(in);
        if (!statusLine.startsWith("HTTP/1.")) {
            throw new IllegalStateException("not an HTTP answer: " + statusLine);
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            int colon = header.indexOf(':');
            headers.putIfAbsent(header.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    header.substring(colon + 1).trim());
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(in);
        }
        else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        }
        else {
            body = in.readAllBytes();
        }
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static byte[] dechunk(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            int length = Integer.parseInt(line(in).split(";")[0].trim(), 16);
            if (length == 0) {
                line(in);
                return body.toByteArray();
            }
            body.write(in.readNBytes(length));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
