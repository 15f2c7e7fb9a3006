package io.queuegate.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Ports free now (on every address, as a server that binds them all needs), for servers a test starts on ports it names. Several ports a server
 * needs are asked for together, every socket held open until all are chosen: a port closed at
 * once may be handed out again by the next ask, and a gateway whose shopper and management ports
 * come out equal does not start.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /** One free port. */
    public static int one() {
        return of(1)[0];
    }

    /** {@code count} free ports, different from each other. */
    public static int[] of(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0));
            }
            return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                }
                catch (IOException ignored) {
                    // Closing a listening socket that never accepted anything: nothing to lose.
                }
            }
        }
    }
}
