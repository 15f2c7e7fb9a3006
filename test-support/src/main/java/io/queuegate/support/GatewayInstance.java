package io.queuegate.support;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * One running QueueGate gateway on a random port, pointed at a test Redis and backend. Several
 * of them on one Redis are what the multi-instance claims are tested with.
 */
public final class GatewayInstance implements AutoCloseable {

    public static final String SECRET = "test-secret-that-is-long-enough-for-hs256-0123456789";

    /**
     * What a shop's gateway would configure around QueueGate, as the tests expect it: oversized
     * headers refused by the server, the keep-alive workaround, the circuit breaker's window,
     * health groups, and the actuator on the one port (the library leaves exposure to the
     * application).
     */
    private static final Map<String, Object> SHOP_GATEWAY = Map.ofEntries(
            Map.entry("spring.data.redis.timeout", "2s"),
            // The tests speak for shoppers with X-User-Id, as a shop's trusted proxy would on loopback.
            Map.entry("queuegate.identity.source", "header"),
            Map.entry("queuegate.trusted-proxies[0]", "127.0.0.1/32"),
            Map.entry("queuegate.trusted-proxies[1]", "::1/128"),
            Map.entry("server.max-http-request-header-size", "16KB"),
            // Reactor Netty reads the flag once per JVM, at the first connection any server accepts:
            // every gateway of the test JVM sets it, or KeepAliveConnectionTest depends on test order.
            Map.entry("queuegate.server.keep-alive-workaround", "true"),
            Map.entry("resilience4j.circuitbreaker.instances.queuegate.sliding-window-type", "COUNT_BASED"),
            Map.entry("resilience4j.circuitbreaker.instances.queuegate.sliding-window-size", "20"),
            Map.entry("resilience4j.circuitbreaker.instances.queuegate.minimum-number-of-calls", "10"),
            Map.entry("resilience4j.circuitbreaker.instances.queuegate.failure-rate-threshold", "50"),
            Map.entry("resilience4j.circuitbreaker.instances.queuegate.wait-duration-in-open-state", "2s"),
            Map.entry("resilience4j.circuitbreaker.instances.queuegate.permitted-number-of-calls-in-half-open-state", "3"),
            Map.entry("resilience4j.circuitbreaker.instances.queuegate.automatic-transition-from-open-to-half-open-enabled", "true"),
            Map.entry("management.endpoints.web.exposure.include", "health,info,prometheus"),
            Map.entry("management.endpoint.health.probes.enabled", "true"),
            Map.entry("management.endpoint.health.show-components", "always"),
            Map.entry("management.endpoint.health.show-details", "always"),
            Map.entry("management.endpoint.health.group.readiness.include", "readinessState,queuegate"));

    private final ConfigurableApplicationContext context;

    private GatewayInstance(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** Starts the library's {@link TestGateway} with the given properties. */
    public static GatewayInstance start(Map<String, Object> properties) {
        return start(TestGateway.class, properties);
    }

    /**
     * Starts {@code application} (the runnable gateway's main class, for its own tests) with the
     * given properties, which win over the application's own files.
     */
    public static GatewayInstance start(Class<?> application, Map<String, Object> properties) {
        return start(application, properties, null);
    }

    /**
     * Starts the library's {@link TestGateway} on {@code clock} instead of the system's: every
     * decision the gateway makes (an opening, a closing, abandon-after, a token's lifetime) reads
     * that clock, so a test moves time on instead of waiting for it. What still passes in real
     * time: the periods of its loops (the timed products' a quarter second, the safety net's
     * seconds), which read the clock when they run, and Redis's own expiries (a seen bitmap lives
     * abandon-after and half again, a session's keys their ttl).
     */
    public static GatewayInstance start(Map<String, Object> properties, Clock clock) {
        return start(TestGateway.class, properties, clock);
    }

    private static GatewayInstance start(Class<?> application, Map<String, Object> properties, Clock clock) {
        SpringApplication app = new SpringApplicationBuilder(application).build();
        if (clock != null) {
            // The bean the auto-configuration backs off for: the gateway's one clock.
            app.addInitializers(context -> context.getBeanFactory().registerSingleton("queuegateClock", clock));
        }
        // As arguments, not default properties: those would lose to application.yml.
        String[] args = properties.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toArray(String[]::new);
        return new GatewayInstance(app.run(args));
    }

    /** Properties for a gateway on {@code redis} with a product route to {@code backendUrl}. */
    public static Map<String, Object> defaults(RedisProcess redis, String backendUrl, Map<String, Object> queue) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("spring.data.redis.host", "127.0.0.1");
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.putAll(defaults(backendUrl, queue));
        return properties;
    }

    /**
     * Like {@link #defaults(RedisProcess, String, Map)} but with no {@code spring.data.redis.*}
     * at all, for a Redis Cluster or Sentinel the caller names itself.
     */
    public static Map<String, Object> defaults(String backendUrl, Map<String, Object> queue) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("queuegate.token.secret", SECRET);
        properties.put("spring.main.banner-mode", "off");
        properties.put("logging.level.root", "WARN");
        properties.putAll(SHOP_GATEWAY);
        String route = "spring.cloud.gateway.server.webflux.routes[0].";
        properties.put(route + "id", "products");
        properties.put(route + "uri", backendUrl);
        properties.put(route + "predicates[0]", "Path=/api/products/{productId}/**,/api/products/{productId}");
        queue.forEach((key, value) -> properties.put(route + "metadata.queue." + key, value));
        return properties;
    }

    public int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    public String baseUrl() {
        return "http://localhost:" + port();
    }

    /** The actuator's own port, when {@code management.server.port} gave it one (0: a free port). */
    public int managementPort() {
        Integer port = context.getEnvironment().getProperty("local.management.port", Integer.class);
        if (port == null) {
            throw new IllegalStateException("this gateway serves the actuator on its main port");
        }
        return port;
    }

    public String managementUrl() {
        return "http://localhost:" + managementPort();
    }

    public WebTestClient client() {
        // Generous: a cold JVM's first forwarded request on a busy 2-core CI machine can be slow.
        return WebTestClient.bindToServer().baseUrl(baseUrl()).responseTimeout(Duration.ofSeconds(20)).build();
    }

    /**
     * Forgets everything this instance remembers of Redis's data (its views of the lines, the
     * sessions it heard of, the rules it used): for a test that flushed Redis on purpose, which no
     * epoch tells, so nothing of the test before comes back as if Redis had lost it.
     */
    public void forgetRedis() {
        bean(io.queuegate.line.LineViews.class).forgetAll();
        bean(io.queuegate.recovery.SessionLedger.class).forgetAll();
        bean(io.queuegate.recovery.LineRecovery.class).forgetAll();
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** Publishes an application event in this gateway's context, as a route source would. */
    public void publish(Object event) {
        context.publishEvent(event);
    }

    @Override
    public void close() {
        context.close();
    }

    /** Closes all, in reverse start order. */
    public static void closeAll(List<GatewayInstance> instances) {
        List<GatewayInstance> reversed = new ArrayList<>(instances);
        java.util.Collections.reverse(reversed);
        reversed.forEach(GatewayInstance::close);
    }
}
