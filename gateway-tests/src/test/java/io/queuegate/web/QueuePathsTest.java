package io.queuegate.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.function.server.support.RouterFunctionMapping;

import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * QueueGate's endpoints under {@code /queue/} are found without trying every forwarded request
 * against them, and beside a shop's own router functions in library mode.
 */
class QueuePathsTest {

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        gateway = GatewayInstance.start(ShopWithItsOwnFunctions.class,
                GatewayInstance.defaults(redis, backend.baseUrl(), Map.of("max-active", "5")));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        backend.stop();
        redis.close();
    }

    @Test
    void aRequestOutsideQueueNeverReachesTheEndpointsFunctions() {
        List<String> asked = new ArrayList<>();
        QueuePaths paths = paths(asked);
        for (String path : List.of("/api/products/1", "/queue", "/queuex/1/status", "/shop/queue/1/status", "/")) {
            Object handler = paths.getHandler(MockServerWebExchange.from(MockServerHttpRequest.get(path))).block();
            assertThat(handler).as(path).isNull();
        }
        assertThat(asked).isEmpty();
    }

    @Test
    void aRequestUnderQueueIsRoutedWithinTheApplicationsContextPath() {
        List<String> asked = new ArrayList<>();
        QueuePaths paths = paths(asked);
        assertThat(paths.getHandler(MockServerWebExchange.from(MockServerHttpRequest.get("/queue/1/status"))).block())
                .isNotNull();
        assertThat(paths.getHandler(MockServerWebExchange.from(
                MockServerHttpRequest.get("/shop/queue/1/status").contextPath("/shop"))).block()).isNotNull();
        assertThat(asked).containsExactly("/queue/1/status", "/queue/1/status");
    }

    @Test
    void webFluxsOwnRouterFunctionMappingHoldsOnlyTheShopsFunctions() {
        List<RouterFunctionMapping> functionMappings = new ArrayList<>();
        for (HandlerMapping mapping : gateway.bean(DispatcherHandler.class).getHandlerMappings()) {
            if (mapping instanceof RouterFunctionMapping functions && !(mapping instanceof QueuePaths)) {
                functionMappings.add(functions);
            }
        }
        assertThat(functionMappings).isNotEmpty();
        // Spring composes the router function beans it finds; QueueGate's are not among them.
        assertThat(functionMappings).extracting(RouterFunctionMapping::getRouterFunction)
                .allSatisfy(function -> assertThat(String.valueOf(function)).doesNotContain("/queue/"))
                .anySatisfy(function -> assertThat(String.valueOf(function)).contains("/shop/hello"));
    }

    @Test
    void theShopsFunctionsAndQueueGatesEndpointsAndRoutesAreAllServed() {
        assertThat(gateway.client().get().uri("/shop/hello").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody()).isEqualTo("hello");
        gateway.client().get().uri("/queue/client.js").exchange().expectStatus().isOk();
        // The status endpoint itself answers: a caller without a token for the product.
        gateway.client().get().uri("/queue/1/status").header("X-User-Id", "nobody").exchange()
                .expectStatus().isUnauthorized().expectBody().jsonPath("$.error").isEqualTo("invalid_token");
        gateway.client().get().uri("/api/products/1").header("X-User-Id", "first").exchange()
                .expectStatus().isOk();
    }

    /** The mapping over a status endpoint that notes every request it is asked about. */
    private static QueuePaths paths(List<String> asked) {
        RouterFunction<ServerResponse> status = new RouterFunction<>() {
            private final RouterFunction<ServerResponse> route = RouterFunctions.route()
                    .GET(QueuePaths.PREFIX + "{productId}/status", request -> ServerResponse.ok().build())
                    .build();

            @Override
            public Mono<HandlerFunction<ServerResponse>> route(ServerRequest request) {
                asked.add(request.requestPath().pathWithinApplication().value());
                return route.route(request);
            }
        };
        QueuePaths paths = new QueuePaths(status, ServerCodecConfigurer.create());
        try {
            paths.afterPropertiesSet();
        }
        catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return paths;
    }

    /** A shop's gateway in library mode, with a router function of its own. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ShopWithItsOwnFunctions {

        @Bean
        RouterFunction<ServerResponse> shopHello() {
            return RouterFunctions.route().GET("/shop/hello", request -> ServerResponse.ok().bodyValue("hello"))
                    .build();
        }
    }
}
