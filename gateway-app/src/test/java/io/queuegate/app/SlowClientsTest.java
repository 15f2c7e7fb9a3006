package io.queuegate.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;


import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that sends its headers a byte at a time (slowloris) is cut off once the header-read
 * deadline has passed, while a keep-alive connection may rest between requests for as long as the
 * idle timeout allows. Before, such a connection was held open for as long as the client liked.
 */
class SlowClientsTest {

    @RegisterExtension
    static final RunnableGatewayFixture fixture = RunnableGatewayFixture.create().with("queuegate.server.header-read-timeout", "1s");

    @Test
    void aClientTricklingItsHeadersIsCutOffAtTheDeadline() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", fixture.gateway().port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /api/products/42 HTTP/1.1\r\nHost: localhost\r\n".getBytes(StandardCharsets.US_ASCII));
            // A header line every 200 ms, well within any idle timeout between bytes: only the
            // header deadline (1 s) stops it, and soon after it.
            trickleUntilClosed(socket, 0, Duration.ofMillis(200));
        }
    }

    @Test
    void aKeepAliveConnectionMayRestBetweenRequestsLongerThanTheHeaderDeadline() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", fixture.gateway().port())) {
            socket.setSoTimeout(10_000);
            assertThat(request(socket)).startsWith("HTTP/1.1 404");
            // Resting longer than the header deadline between requests does not close it.
            Awaitility.await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3))
                    .until(() -> !closedByServer(socket));
            assertThat(request(socket)).startsWith("HTTP/1.1 404");
        }
    }

    /**
     * The deadline is one timer per connection, armed by the first head and not by each one: a
     * connection busy with quick requests that then trickles a head is still cut off, at that
     * head's own deadline, not at the first request's.
     */
    @Test
    void aBusyConnectionThatThenTricklesItsHeadersIsCutOffAtThatHeadsDeadline() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", fixture.gateway().port())) {
            socket.setSoTimeout(10_000);
            long first = System.nanoTime();
            // Quick requests for 700 ms: the timer the first one armed is still pending.
            while (System.nanoTime() - first < Duration.ofMillis(700).toNanos()) {
                assertThat(request(socket)).startsWith("HTTP/1.1 404");
            }
            OutputStream out = socket.getOutputStream();
            out.write("GET /nowhere HTTP/1.1\r\nHost: localhost\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long trickleStarted = System.nanoTime();
            // Past the first request's deadline (at about 1 s from the first request), but not this
            // head's: the connection stays open all the while.
            Awaitility.await("open until this head's own deadline").during(Duration.ofMillis(600))
                    .atMost(Duration.ofMillis(900)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !closedByServer(socket));
            out.write("X-Slow-0: y\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            trickleUntilClosed(socket, 1, Duration.ofMillis(100));
            assertThat(Duration.ofNanos(System.nanoTime() - trickleStarted)).isGreaterThanOrEqualTo(Duration.ofMillis(1_000));
        }
    }

    /** Sends a header line every {@code interval} until the gateway closes the connection (within 5 s). */
    private static void trickleUntilClosed(Socket socket, int firstLine, Duration interval) {
        int[] lines = { firstLine };
        Awaitility.await("closed by the gateway").atMost(Duration.ofSeconds(5)).pollInterval(interval)
                .until(() -> {
                    try {
                        socket.getOutputStream().write(("X-Slow-" + lines[0]++ + ": y\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                        socket.getOutputStream().flush();
                    }
                    catch (SocketException reset) {
                        return true;
                    }
                    return closedByServer(socket);
                });
    }

    /** A request for a path no route serves, answered 404 with a small body, on a kept-alive connection. */
    private static String request(Socket socket) throws IOException {
        socket.getOutputStream().write("GET /nowhere HTTP/1.1\r\nHost: localhost\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int next = in.read();
            if (next < 0) {
                break;
            }
            head.append((char) next);
        }
        String text = head.toString();
        int length = 0;
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.readNBytes(length);
        return text;
    }

    private static boolean closedByServer(Socket socket) throws IOException {
        socket.setSoTimeout(1);
        try {
            return socket.getInputStream().read() == -1;
        }
        catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        }
        catch (SocketException reset) {
            return true;
        }
        finally {
            socket.setSoTimeout(10_000);
        }
    }
}
