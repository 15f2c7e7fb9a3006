package io.queuegate.websocket;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.channel.Channel;
import io.queuegate.admission.ActiveCache;
import io.queuegate.store.Channels;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.QueueScripts;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.http.websocket.WebsocketOutbound;

/**
 * The WebSockets this instance proxies for admitted shoppers, each closed when its session ends.
 * What ends a session, and how this instance learns it:
 * <ul>
 * <li>a completion or a leave, on any instance: {@code leave.lua} announces the user on
 * {@code qg:released:<pid>}, and the socket's session is checked again;</li>
 * <li>an operator's change to the product ({@code '*'} on the same channel, a room closed among
 * them): every socket of the product is checked again;</li>
 * <li>time: the session's end, which Redis gave at the first check, closes it without asking
 * (a session is never extended after its first arrival, which came before its socket);</li>
 * <li>a lost subscription: every socket is checked again at once, and again once it can be back.</li>
 * </ul>
 * A check asks Redis ({@code pass.lua}, which reads only) whether the session still holds: what
 * it does not confirm (ended, a closed room, Redis's data of another epoch or gone) closes the
 * socket; a check Redis cannot answer is tried again, the session's end still closing it on time.
 */
public class OpenSockets implements SmartLifecycle {

    /** The close status the client sees: 1008, the endpoint's policy ends the connection. */
    public static final int CLOSE_STATUS = 1008;

    /** The close reason the client sees. */
    public static final String CLOSE_REASON = "queue session ended";

    /** How soon a check Redis could not answer is tried again. */
    static final Duration RETRY = Duration.ofSeconds(2);

    /** After a lost subscription, by when it is made again ({@link Channels#RESUBSCRIBE}: every 5 s at most). */
    static final Duration RESUBSCRIBED_WITHIN = Duration.ofSeconds(10);

    /** How long a client has to take the close frame before the connection is cut. */
    static final Duration CLOSE_WITHIN = Duration.ofSeconds(2);

    private static final Log log = LogFactory.getLog(OpenSockets.class);

    private final QueueScripts scripts;
    private final Channels channels;
    private final Clock clock;
    /** By product and user ({@code pid \0 uid}): a shopper may hold several sockets (tabs). */
    private final Map<String, Set<Socket>> open = new ConcurrentHashMap<>();
    private final AtomicBoolean listening = new AtomicBoolean();
    private volatile Disposable releases;

    public OpenSockets(QueueScripts scripts, Channels channels, Clock clock) {
        this.scripts = scripts;
        this.channels = channels;
        this.clock = clock;
    }

    /**
     * Ties an upgraded connection to the session of {@code userId} in {@code productId}: it is
     * closed when the session ends, and forgotten when it closes by itself.
     */
    public void watch(String productId, String userId, Channel channel) {
        listen();
        Socket socket = new Socket(productId, userId, channel);
        open.computeIfAbsent(key(productId, userId), k -> ConcurrentHashMap.newKeySet()).add(socket);
        channel.closeFuture().addListener(closed -> socket.forget());
        // After it is known: a release announced before is in what Redis answers now.
        socket.check();
    }

    /** How many sockets are open here, for tests and gauges. */
    public int size() {
        return open.values().stream().mapToInt(Set::size).sum();
    }

    private void listen() {
        if (listening.compareAndSet(false, true)) {
            releases = channels.listen(QueueKeys.RELEASED_PATTERN, this::released, () -> {
                // What was announced meanwhile was missed: ask now, and again once the
                // subscription can be back (a check before it is made again misses what comes between).
                checkAll(null);
                Mono.delay(RESUBSCRIBED_WITHIN).subscribe(tick -> checkAll(null));
            });
        }
    }

    private void released(String channel, String user) {
        String productId = QueueKeys.productOfReleasedChannel(channel);
        if (productId == null) {
            return;
        }
        if (ActiveCache.EVERYONE.equals(user)) {
            checkAll(productId);
            return;
        }
        Set<Socket> sockets = open.get(key(productId, user));
        if (sockets != null) {
            List.copyOf(sockets).forEach(Socket::check);
        }
    }

    /** @param productId the product whose sockets to check, or {@code null} for all */
    private void checkAll(String productId) {
        String prefix = productId == null ? "" : key(productId, "");
        open.forEach((key, sockets) -> {
            if (key.startsWith(prefix)) {
                List.copyOf(sockets).forEach(Socket::check);
            }
        });
    }

    @Override
    public void start() {
        // Listens with the first socket: a gateway whose routes take none subscribes to nothing more.
    }

    @Override
    public void stop() {
        Disposable current = releases;
        if (current != null) {
            current.dispose();
        }
        listening.set(false);
    }

    @Override
    public boolean isRunning() {
        return listening.get();
    }

    private static String key(String productId, String userId) {
        return productId + '\u0000' + userId;
    }

    /** One proxied connection and the session it belongs to. */
    private final class Socket {

        private final String productId;
        private final String userId;
        private final Channel channel;
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile Disposable end;
        private volatile Disposable retry;

        Socket(String productId, String userId, Channel channel) {
            this.productId = productId;
            this.userId = userId;
            this.channel = channel;
        }

        void check() {
            if (done.get()) {
                return;
            }
            scripts.pass().run(productId, clock.millis(), List.of(userId))
                    .subscribe(ends -> {
                        Long until = ends.get(0);
                        if (until == null) {
                            close();
                        }
                        else if (end == null) {
                            end = Mono.delay(Duration.ofMillis(Math.max(0, until - clock.millis())))
                                    .subscribe(tick -> close());
                        }
                    }, error -> {
                        log.debug("Could not check the session of a WebSocket of product " + productId
                                + "; trying again: " + error);
                        retry = Mono.delay(RETRY).subscribe(tick -> check());
                    });
        }

        /** The session ended: a close frame, then the connection goes, taking the shop's with it. */
        void close() {
            if (!forget()) {
                return;
            }
            Mono<Void> goodbye = Connection.from(channel) instanceof WebsocketOutbound socket
                    ? socket.sendClose(CLOSE_STATUS, CLOSE_REASON) : Mono.empty();
            goodbye.timeout(CLOSE_WITHIN).onErrorResume(error -> Mono.empty())
                    .doFinally(signal -> channel.close())
                    .subscribe();
        }

        /** @return whether this call forgot it (not an earlier one) */
        boolean forget() {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            open.computeIfPresent(key(productId, userId), (key, sockets) -> {
                sockets.remove(this);
                return sockets.isEmpty() ? null : sockets;
            });
            dispose(end);
            dispose(retry);
            return true;
        }
    }

    private static void dispose(Disposable disposable) {
        if (disposable != null) {
            disposable.dispose();
        }
    }
}
