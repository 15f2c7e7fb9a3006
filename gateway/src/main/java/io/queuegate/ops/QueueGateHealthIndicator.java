package io.queuegate.ops;

import java.util.Map;

import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;
import io.queuegate.config.RedisFailureMode;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.store.EvictionCheck;
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
 * stops sending shoppers to an instance that could only answer 503. Its details also say whether
 * Redis may evict QueueGate's keys ({@link EvictionCheck}): a warning, not a reason to stop serving.
 */
public class QueueGateHealthIndicator implements ReactiveHealthIndicator {

    private final ProductQueues store;
    private final RedisGuard guard;
    private final RouteLocator routes;
    private final RouteQueuePolicies policies;
    private final Map<String, QueueSettings> productOverrides;
    private final EvictionCheck eviction;

    /** @param eviction the check of Redis's eviction policy, or {@code null} for none */
    public QueueGateHealthIndicator(ProductQueues store, RedisGuard guard, RouteLocator routes,
            RouteQueuePolicies policies, Map<String, QueueSettings> productOverrides, EvictionCheck eviction) {
        this.store = store;
        this.guard = guard;
        this.routes = routes;
        this.policies = policies;
        this.productOverrides = productOverrides;
        this.eviction = eviction;
    }

    @Override
    public Mono<Health> health() {
        String circuit = guard.circuit();
        return store.ping()
                .flatMap(pong -> eviction == null ? Mono.just("") : eviction.check().map(EvictionCheck.Verdict::describe)
                        .onErrorReturn("unknown: INFO memory could not be read"))
                .map(evicting -> {
                    Health.Builder up = Health.up().withDetail("redis", "available").withDetail("circuit", circuit);
                    return (evicting.isEmpty() ? up : up.withDetail("eviction", evicting)).build();
                })
                .onErrorResume(error -> anyRouteFailsClosed().map(closed -> (closed ? Health.down() : Health.up())
                        .withDetail("redis", "unavailable: " + error.getClass().getSimpleName())
                        .withDetail("circuit", guard.circuit())
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
