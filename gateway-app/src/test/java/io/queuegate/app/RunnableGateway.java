package io.queuegate.app;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.queuegate.support.FreePorts;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.PowSolver;
import io.queuegate.support.RedisProcess;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The runnable gateway as it ships: its own application.yml, with only what a test cannot leave
 * as is (ports, the Redis, a token secret, a product route) given on the command line.
 */
final class RunnableGateway implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The operator's login on the management port ({@code spring.security.user.*}), as a test sets it. */
    static final String OPERATOR = "operator";
    static final String OPERATOR_PASSWORD = "runnable-gateway-test-password";

    private final ConfigurableApplicationContext context;
    private final int managementPort;

    private RunnableGateway(ConfigurableApplicationContext context, int managementPort) {
        this.context = context;
        this.managementPort = managementPort;
    }

    /**
     * Puts the shopper and management ports on two free ports chosen together: with the shopper
     * port left to the server (0), it could pick the management port just freed, and the
     * gateway would not start.
     */
    static void onTestPorts(Map<String, Object> properties) {
        int[] ports = FreePorts.of(2);
        properties.put("server.port", Integer.toString(ports[0]));
        properties.put("management.server.port", Integer.toString(ports[1]));
    }

    /** Properties that put the shipped configuration on test ports, a test Redis, a product route and an operator login. */
    static Map<String, Object> properties(RedisProcess redis, String shopUrl) {
        Map<String, Object> properties = new LinkedHashMap<>();
        onTestPorts(properties);
        properties.put("spring.data.redis.host", "127.0.0.1");
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.put("queuegate.token.secret", GatewayInstance.SECRET);
        properties.put("spring.security.user.name", OPERATOR);
        properties.put("spring.security.user.password", OPERATOR_PASSWORD);
        properties.put("spring.main.banner-mode", "off");
        properties.put("logging.level.root", "WARN");
        String route = "spring.cloud.gateway.server.webflux.routes[0].";
        properties.put(route + "id", "products");
        properties.put(route + "uri", shopUrl);
        properties.put(route + "predicates[0]", "Path=/api/products/{productId}/**,/api/products/{productId}");
        properties.put(route + "metadata.queue.max-active", "1");
        properties.put(route + "metadata.queue.complete-on", "POST /api/products/{productId}/orders");
        return properties;
    }

    static RunnableGateway start(Map<String, Object> properties) {
        List<String> args = new ArrayList<>();
        properties.forEach((key, value) -> args.add("--" + key + "=" + value));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(QueueGateApplication.class)
                .run(args.toArray(String[]::new));
        return new RunnableGateway(context, Integer.parseInt(String.valueOf(properties.get("management.server.port"))));
    }

    int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    int managementPort() {
        return managementPort;
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    HttpResponse<String> shopper(String method, String path, String... headers) {
        return send(port(), method, path, headers);
    }

    /**
     * An anonymous shopper's first GET: the runnable gateway asks anonymous callers for a proof of
     * work ({@code queuegate.route-defaults.join-challenge: anonymous}), so the answer is a
     * {@code 428} whose challenge this solves, then the same request with the solution.
     */
    HttpResponse<String> anonymousJoin(String path, String... headers) {
        HttpResponse<String> challenged = shopper("GET", path, headers);
        if (challenged.statusCode() != 428) {
            throw new AssertionError("an anonymous join was not asked for a proof of work: " + challenged.statusCode());
        }
        String[] paid = java.util.Arrays.copyOf(headers, headers.length + 2);
        paid[headers.length] = "Queue-Challenge";
        paid[headers.length + 1] = PowSolver.solveBody(challenged.body());
        return shopper("GET", path, paid);
    }

    HttpResponse<String> management(String method, String path, String... headers) {
        return send(managementPort, method, path, headers);
    }

    /** A request to the management port with the operator's login. */
    HttpResponse<String> operator(String method, String path, String... headers) {
        String[] all = java.util.Arrays.copyOf(headers, headers.length + 2);
        all[headers.length] = "Authorization";
        all[headers.length + 1] = RawHttp.basic(OPERATOR, OPERATOR_PASSWORD);
        return send(managementPort, method, path, all);
    }

    static HttpResponse<String> send(int port, String method, String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, method.equals("POST")
                        ? HttpRequest.BodyPublishers.ofString("{\"id\":\"injected\",\"uri\":\"http://127.0.0.1:6379\","
                                + "\"predicates\":[{\"name\":\"Path\",\"args\":{\"_genkey_0\":\"/**\"}}]}")
                        : HttpRequest.BodyPublishers.noBody());
        request.header("Content-Type", "application/json").header("Accept", "application/json");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.setHeader(headers[i], headers[i + 1]);
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (Exception ex) {
            throw new IllegalStateException(method + " " + path + " on port " + port + " failed", ex);
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
