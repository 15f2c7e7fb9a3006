package io.queuegate.paths;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.event.RefreshRoutesResultEvent;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.ApplicationListener;

import reactor.core.publisher.Mono;

/**
 * The protected routes' paths ({@link ProtectedPaths}) of the current route list, made again after
 * every route refresh (startup's included), so a request pays no work of its own for them.
 */
public class ProtectedPathIndex implements ApplicationListener<RefreshRoutesResultEvent> {

    private final ObjectProvider<RouteLocator> routes;
    private volatile ProtectedPaths current;

    public ProtectedPathIndex(ObjectProvider<RouteLocator> routes) {
        this.routes = routes;
    }

    /** The paths of the current routes; made now if no refresh has made them yet. */
    public Mono<ProtectedPaths> current() {
        ProtectedPaths known = current;
        return known != null ? Mono.just(known) : rebuild();
    }

    @Override
    public void onApplicationEvent(RefreshRoutesResultEvent event) {
        if (event.isSuccess()) {
            rebuild().subscribe();
        }
    }

    private Mono<ProtectedPaths> rebuild() {
        RouteLocator locator = routes.getIfAvailable();
        if (locator == null) {
            return Mono.just(ProtectedPaths.NONE);
        }
        return locator.getRoutes().collectList().map(ProtectedPaths::of).doOnNext(paths -> current = paths);
    }
}
