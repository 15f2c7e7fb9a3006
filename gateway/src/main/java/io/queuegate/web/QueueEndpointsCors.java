package io.queuegate.web;

import java.util.Map;

import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.reactive.CorsConfigurationSource;
import org.springframework.web.cors.reactive.UrlBasedCorsConfigurationSource;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * The shoppers' endpoints under {@code /queue/} follow the gateway's global CORS
 * ({@code spring.cloud.gateway.server.webflux.globalcors}), as the routes they serve do: Spring Cloud
 * Gateway applies it to its routes only, and a single-page app on another origin that was let into a
 * line could otherwise not follow its place. Each handler carries the configuration, which WebFlux
 * reads for preflights and CORS requests alone; no other request pays for it.
 */
public final class QueueEndpointsCors implements RouterFunction<ServerResponse> {

    private final RouterFunction<ServerResponse> endpoints;
    private final CorsConfigurationSource configurations;

    private QueueEndpointsCors(RouterFunction<ServerResponse> endpoints, CorsConfigurationSource configurations) {
        this.endpoints = endpoints;
        this.configurations = configurations;
    }

    /**
     * @param globalCors the gateway's global CORS by path pattern; nothing changes when there is none
     */
    public static RouterFunction<ServerResponse> of(RouterFunction<ServerResponse> endpoints,
            Map<String, CorsConfiguration> globalCors) {
        if (globalCors == null || globalCors.isEmpty()) {
            return endpoints;
        }
        UrlBasedCorsConfigurationSource source = new UrlBasedCorsConfigurationSource();
        source.setCorsConfigurations(globalCors);
        return new QueueEndpointsCors(endpoints, source);
    }

    @Override
    public Mono<HandlerFunction<ServerResponse>> route(ServerRequest request) {
        return endpoints.route(request).map(handler -> new Handler(handler, configurations));
    }

    private record Handler(HandlerFunction<ServerResponse> handler, CorsConfigurationSource configurations)
            implements HandlerFunction<ServerResponse>, CorsConfigurationSource {

        @Override
        public Mono<ServerResponse> handle(ServerRequest request) {
            return handler.handle(request);
        }

        @Override
        public CorsConfiguration getCorsConfiguration(ServerWebExchange exchange) {
            return configurations.getCorsConfiguration(exchange);
        }
    }
}
