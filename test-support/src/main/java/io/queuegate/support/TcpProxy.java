package io.queuegate.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback for fault tests: it listens on a free port and forwards each connection
 * to a target port, byte for byte and in order, both ways. {@link #pause()} holds back what the
 * target sends (a master's replication stream, say) while the other way keeps flowing, like a
 * link that has stopped delivering: the held bytes wait in the proxy and, once it stops reading,
 * in the kernel's buffers, so what the target writes meanwhile never arrives unless
 * {@link #resume()} is called before the target dies.
 */
public final class TcpProxy implements AutoCloseable {

    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    // Guarded by gate.
    private boolean paused;
    private boolean closed;
    private int writing;

    private TcpProxy(ServerSocket server, InetSocketAddress target) {
        this.server = server;
        this.target = target;
        thread("tcp-proxy-" + port() + "-accept", this::accept).start();
    }

    /** Starts a proxy on a free loopback port to {@code 127.0.0.1:targetPort}. */
    public static TcpProxy start(int targetPort) {
        try {
            // Port 0: the system picks a free port and no other process can take it in between.
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            return new TcpProxy(server, new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /**
     * Stops forwarding what the target sends, on every connection, old and new. When this returns
     * no such byte is on its way any more: a write under way has finished, later ones wait.
     */
    public void pause() {
        synchronized (gate) {
            paused = true;
            while (writing > 0) {
                awaitGate();
            }
        }
    }

    /** Forwards again, the held bytes first. */
    public void resume() {
        synchronized (gate) {
            paused = false;
            gate.notifyAll();
        }
    }

    @Override
    public void close() {
        synchronized (gate) {
            closed = true;
            gate.notifyAll();
        }
        closeQuietly(server);
        sockets.forEach(TcpProxy::closeQuietly);
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            }
            catch (IOException stopped) {
                return;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(target, CONNECT_TIMEOUT_MILLIS);
                // Redis speaks in small request/answer exchanges: no Nagle delay on top of the proxy.
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            }
            catch (IOException targetDown) {
                // As if the target refused the connection: the client sees it closed.
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            sockets.add(client);
            sockets.add(upstream);
            if (server.isClosed()) {
                // close() ran between accept and here, and did not see these two
                closeBoth(client, upstream);
                return;
            }
            // Each direction half-closes on its own end of stream; the second one to end closes both.
            AtomicInteger open = new AtomicInteger(2);
            String name = "tcp-proxy-" + port() + "-" + client.getPort();
            thread(name + "-up", () -> pump(client, upstream, false, open)).start();
            thread(name + "-down", () -> pump(upstream, client, true, open)).start();
        }
    }

    private void pump(Socket from, Socket to, boolean gated, AtomicInteger open) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) != -1) {
                if (!gated) {
                    out.write(buffer, 0, read);
                }
                else if (!write(out, buffer, read)) {
                    return;
                }
            }
            to.shutdownOutput();
            if (open.decrementAndGet() == 0) {
                closeBoth(from, to);
            }
        }
        catch (IOException broken) {
            // A reset or a write to a closed peer: the connection is over both ways, as it would
            // be without the proxy.
            closeBoth(from, to);
        }
    }

    /** Writes what the target sent once the gate is open; false when the proxy closed meanwhile. */
    private boolean write(OutputStream out, byte[] buffer, int length) throws IOException {
        synchronized (gate) {
            while (paused && !closed) {
                awaitGate();
            }
            if (closed) {
                return false;
            }
            writing++;
        }
        try {
            out.write(buffer, 0, length);
            return true;
        }
        finally {
            synchronized (gate) {
                writing--;
                gate.notifyAll();
            }
        }
    }

    private void awaitGate() {
        try {
            gate.wait();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted at the proxy's gate", ex);
        }
    }

    private void closeBoth(Socket one, Socket other) {
        closeQuietly(one);
        closeQuietly(other);
        sockets.remove(one);
        sockets.remove(other);
    }

    private static Thread thread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        }
        catch (Exception ignored) {
            // closing is best effort: the peer may be gone already
        }
    }
}
