package io.queuegate.ops;

import java.util.Map;

import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;
import io.queuegate.config.RedisFailureMode;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.RedisGuard;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.cloud.gateway.route.RouteLocator;

import reactor.core.publisher.Mono;

/**
 * The {@code queuegate} health component: Redis reachability through QueueGate's own guard and
 * the circuit breaker's state. It is DOWN only when Redis cannot answer and some protected route
 * or product fails closed, because only then can the gateway not serve; with every route
 * failing open it stays UP and says so. It belongs to the readiness group, so a load balancer
 * stops sending shoppers to an instance that could only answer 503.
 */
public class QueueGateHealthIndicator implements ReactiveHealthIndicator {

    private final ProductQueues store;
    private final RedisGuard guard;
    private final RouteLocator routes;
    private final RouteQueuePolicies policies;
    private final Map<String, QueueSettings> productOverrides;

    public QueueGateHealthIndicator(ProductQueues store, RedisGuard guard, RouteLocator routes,
            RouteQueuePolicies policies, Map<String, QueueSettings> productOverrides) {
        this.store = store;
        this.guard = guard;
        this.routes = routes;
        this.policies = policies;
        this.productOverrides = productOverrides;
    }

    @Override
    public Mono<Health> health() {
        String circuit = guard.breaker().getState().name();
        return store.ping()
                .map(pong -> Health.up().withDetail("redis", "available").withDetail("circuit", circuit).build())
                .onErrorResume(error -> anyRouteFailsClosed().map(closed -> (closed ? Health.down() : Health.up())
                        .withDetail("redis", "unavailable: " + error.getClass().getSimpleName())
                        .withDetail("circuit", guard.breaker().getState().name())
                        .withDetail("routes", closed ? "some fail closed (503)" : "all fail open (forward unchecked)")
                        .build()));
    }

    private Mono<Boolean> anyRouteFailsClosed() {
        return routes.getRoutes()
                .filter(RouteQueuePolicies::isProtected)
                .any(route -> {
                    QueueSettings settings = policies.routeSettings(route);
                    return QueuePolicy.from(settings).onRedisFailure() == RedisFailureMode.CLOSED
                            || productOverrides.values().stream().anyMatch(override ->
                                    QueuePolicy.from(settings.overriddenBy(override)).onRedisFailure()
                                            == RedisFailureMode.CLOSED);
                });
    }
}
