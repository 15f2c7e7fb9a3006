package io.queuegate.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.queuegate.app.QueueGateApplication;

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

    private final ConfigurableApplicationContext context;

    private GatewayInstance(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** Starts with the given properties, which win over the application's own files. */
    public static GatewayInstance start(Map<String, Object> properties) {
        SpringApplication app = new SpringApplicationBuilder(QueueGateApplication.class).build();
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

    public WebTestClient client() {
        // Generous: a cold JVM's first forwarded request on a busy 2-core CI machine can be slow.
        return WebTestClient.bindToServer().baseUrl(baseUrl()).responseTimeout(Duration.ofSeconds(20)).build();
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
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
