package io.queuegate.websocket;

import java.util.List;
import java.util.Locale;

import io.netty.channel.Channel;
import io.queuegate.admission.Caller;
import io.queuegate.config.RouteFields;
import io.queuegate.config.WebSocketUpgrade;
import io.queuegate.events.QueueEvents;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.web.QueueAdmissionFilter;
import io.queuegate.web.QueueError;
import io.queuegate.web.QueueResponses;

import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.http.websocket.WebsocketInbound;

/**
 * WebSocket upgrades on protected routes. A route that does not take them ({@code websocket:
 * refuse}, the default) answers {@code 400 websocket_not_allowed} before any queue work; one that
 * does ({@code allow}) lets the admission decide as for any request (queued while the caller
 * waits), and hands the upgraded connection of an admitted caller to {@link OpenSockets}, which
 * closes it when the session ends. Routes without a {@code queue} block are not touched.
 */
public class WebSocketUpgrades implements GlobalFilter, Ordered {

    /** Before the admission, which must not make a place for an upgrade it will not let through. */
    public static final int ORDER = QueueAdmissionFilter.ORDER - 2;

    private final RouteQueuePolicies policies;
    private final OpenSockets sockets;
    private final QueueResponses responses;
    private final QueueEvents events;

    public WebSocketUpgrades(RouteQueuePolicies policies, OpenSockets sockets, QueueResponses responses,
            QueueEvents events) {
        this.policies = policies;
        this.sockets = sockets;
        this.responses = responses;
        this.events = events;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    /**
     * Whether the request asks to become a WebSocket: an {@code Upgrade} header that names
     * {@code websocket} in any case, among other protocols or with a version, on any of its lines.
     * Looser than what Spring upgrades, so nothing it would upgrade passes as a plain request.
     */
    public static boolean isUpgrade(ServerHttpRequest request) {
        List<String> upgrades = request.getHeaders().get(HttpHeaders.UPGRADE);
        if (upgrades == null) {
            return false;
        }
        for (String line : upgrades) {
            for (String protocol : line.split(",")) {
                String name = protocol.strip().toLowerCase(Locale.ROOT);
                int version = name.indexOf('/');
                if ((version < 0 ? name : name.substring(0, version).strip()).equals("websocket")) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        if (!RouteQueuePolicies.isProtected(route) || !isUpgrade(exchange.getRequest())) {
            return chain.filter(exchange);
        }
        WebSocketUpgrade upgrade;
        try {
            upgrade = RouteFields.WEBSOCKET.or(policies.routeSettings(route).websocket());
        }
        catch (IllegalArgumentException invalidQueueBlock) {
            // The admission answers it 503, as every request of the route.
            return chain.filter(exchange);
        }
        Channel channel = channelOf(exchange.getRequest());
        if (upgrade != WebSocketUpgrade.ALLOW || channel == null) {
            // Without the connection in hand, nothing could close it when the session ends.
            events.rejected(route.getId(), QueueError.WEBSOCKET_NOT_ALLOWED.code());
            return responses.error(exchange, QueueError.WEBSOCKET_NOT_ALLOWED,
                    QueueError.WEBSOCKET_NOT_ALLOWED.message(), false);
        }
        // Once the chain is done the handshake is (Reactor Netty runs the socket on its own): a
        // release announced before the socket is known shows in the check it starts with.
        return chain.filter(exchange).then(Mono.fromRunnable(() -> {
            Caller caller = exchange.getAttribute(QueueAdmissionFilter.ADMITTED_CALLER);
            if (caller != null && Connection.from(channel) instanceof WebsocketInbound) {
                sockets.watch(caller.productId(), caller.userId(), channel);
            }
        }));
    }

    /** The connection the request came on, when the server is Reactor Netty's; else {@code null}. */
    private static Channel channelOf(ServerHttpRequest request) {
        try {
            Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(request);
            return nativeRequest instanceof Connection connection ? connection.channel() : null;
        }
        catch (IllegalArgumentException noNativeRequest) {
            return null;
        }
    }
}
