package io.queuegate.identity;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Lines;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import reactor.core.publisher.Mono;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The caller is who a trusted source says, never who the request says. Two gateways on one Redis:
 * {@code viaProxy} is reached through the shop's login proxy (loopback is trusted there, so
 * {@code X-User-Id} is believed), {@code direct} is what a client reaches by itself (only
 * {@code 10.0.0.0/8} is trusted, so its {@code X-User-Id} is ignored). Before, a client that
 * sent {@code X-User-Id: alice} got alice's place and token, and could throw her out.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdentityTest {

    private static RedisProcess redis;
    private static WireMockServer shop;
    private static GatewayInstance viaProxy;
    private static GatewayInstance direct;
    private static GatewayInstance custom;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        shop = Backend.start();
        viaProxy = GatewayInstance.start(properties());
        Map<String, Object> untrusted = properties();
        untrusted.put("queuegate.trusted-proxies[0]", "10.0.0.0/8");
        untrusted.put("queuegate.trusted-proxies[1]", "10.0.0.0/8");
        direct = GatewayInstance.start(untrusted);
        custom = GatewayInstance.start(SessionCookieGateway.class, properties());
    }

    @AfterAll
    static void stop() {
        GatewayInstance.closeAll(List.of(viaProxy, direct, custom));
        shop.stop();
        redis.close();
    }

    @BeforeEach
    void empty() {
        redis.flushAll();
        shop.resetRequests();
    }

    @Test
    void aForgedIdentityHeaderGetsAnAnonymousPlaceOfItsOwnNeverTheNamedShoppers() {
        join(viaProxy, "bob").expectStatus().isOk();
        String alices = tokenOf(join(viaProxy, "alice").expectStatus().isEqualTo(429));

        EntityExchangeResult<byte[]> forged = join(direct, "alice").expectStatus().isEqualTo(429)
                .expectHeader().valueEquals("Queue-Rank", "2")
                .expectBody().jsonPath("$.userId").value(id -> assertThat((String) id).startsWith("anon-"))
                .returnResult();
        String mallorys = forged.getResponseHeaders().getFirst("Queue-Token");

        // Mallory's leave gives up Mallory's place, not alice's.
        direct.client().delete().uri("/queue/42").header("X-User-Id", "alice").header("Queue-Token", mallorys)
                .exchange().expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("LEFT");
        viaProxy.client().get().uri("/queue/42/status").header("X-User-Id", "alice").header("Queue-Token", alices)
                .exchange().expectBody().jsonPath("$.status").isEqualTo("WAITING").jsonPath("$.rank").isEqualTo(1);
        assertThat(Lines.of(redis.commands(), "42")).containsExactly("alice");
    }

    @Test
    void aForgedIdentityOfAnActiveShopperIsNeverLetThrough() {
        join(viaProxy, "bob").expectStatus().isOk();
        join(direct, "bob").expectStatus().isEqualTo(429)
                .expectBody().jsonPath("$.userId").value(id -> assertThat((String) id).startsWith("anon-"));
        assertThat(shop.findAll(anyRequestedFor(anyUrl()))).hasSize(1);
    }

    @Test
    void aClientSentForwardedForNamingATrustedProxyChangesNothing() {
        join(viaProxy, "bob").expectStatus().isOk();
        // 10.0.0.1 is a trusted proxy of the direct gateway; the request's peer is not.
        direct.client().get().uri("/api/products/42").header("X-User-Id", "alice").header("X-Forwarded-For", "10.0.0.1")
                .header("Forwarded", "for=10.0.0.1").exchange().expectStatus().isEqualTo(429)
                .expectBody().jsonPath("$.userId").value(id -> assertThat((String) id).startsWith("anon-"));
        assertThat(Lines.of(redis.commands(), "42")).noneMatch("alice"::equals);
    }

    @Test
    void theShopSeesTheIdentityTheGatewayDecidedNotTheOneTheClientSent() {
        join(viaProxy, "alice").expectStatus().isOk();
        assertThat(shop.findAll(anyRequestedFor(anyUrl()))).singleElement()
                .satisfies(request -> assertThat(request.getHeader("X-User-Id")).isEqualTo("alice"));
        shop.resetRequests();
        redis.flushAll();

        join(direct, "alice").expectStatus().isOk();
        LoggedRequest anonymous = shop.findAll(anyRequestedFor(anyUrl())).get(0);
        assertThat(anonymous.containsHeader("X-User-Id")).as("an anonymous caller's request names nobody").isFalse();
    }

    @Test
    void aRouteWithoutAQueueCarriesTheIdentityHeaderOnlyAsATrustedProxyWroteIt() {
        direct.client().get().uri("/open/profile").header("X-User-Id", "alice").exchange().expectStatus().isOk()
                .expectBody().returnResult();
        assertThat(shop.findAll(anyRequestedFor(anyUrl())).get(0).containsHeader("X-User-Id")).isFalse();
        shop.resetRequests();
        viaProxy.client().get().uri("/open/profile").header("X-User-Id", "alice").exchange().expectStatus().isOk()
                .expectBody().returnResult();
        assertThat(shop.findAll(anyRequestedFor(anyUrl())).get(0).getHeader("X-User-Id")).isEqualTo("alice");
    }

    @Test
    void identitiesOutsideTheIdAlphabetQueueUnderAHashedIdAndAreNeverRefused() {
        join(viaProxy, "auth0|123").expectStatus().isOk();
        String id = UserIds.of("auth0|123");
        assertThat(redis.commands().zrange("qg:{42}:active", 0, -1)).containsExactly(id);
        assertThat(shop.findAll(anyRequestedFor(anyUrl())).get(0).getHeader("X-User-Id"))
                .as("the shop is told the identity as it came, not the queue's id").isEqualTo("auth0|123");
        join(viaProxy, "Ana María").expectStatus().isEqualTo(429)
                .expectBody().jsonPath("$.userId").isEqualTo(UserIds.of("Ana María"));
    }

    @Test
    void ignoredIdentityHeadersAreNotLoggedOncePerRequest(CapturedOutput output) {
        for (int i = 0; i < 5; i++) {
            join(direct, "alice-" + i);
        }
        // At most once a minute (IgnoredIdentityHeadersTest): once, or not at all if an earlier test was first.
        assertThat(output.getAll().split("Ignored the identity header", -1).length - 1).isLessThanOrEqualTo(1);
    }

    @Test
    void anApplicationsOwnIdentityResolverReplacesBothSources() {
        custom.client().get().uri("/api/products/42").header("Cookie", "shop_session=s-carol")
                .header("X-User-Id", "alice").exchange().expectStatus().isOk();
        assertThat(redis.commands().zrange("qg:{42}:active", 0, -1)).containsExactly("carol");
        assertThat(shop.findAll(anyRequestedFor(anyUrl())).get(0).getHeader("X-User-Id")).isEqualTo("carol");
    }

    private static WebTestClient.ResponseSpec join(GatewayInstance gateway, String user) {
        return gateway.client().get().uri("/api/products/42").header("X-User-Id", user).exchange();
    }

    private static String tokenOf(WebTestClient.ResponseSpec spec) {
        return spec.expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
    }

    private static Map<String, Object> properties() {
        Map<String, Object> properties = new LinkedHashMap<>(GatewayInstance.defaults(redis, shop.baseUrl(),
                Map.of("max-active", "1")));
        properties.put("spring.cloud.gateway.server.webflux.routes[1].id", "open");
        properties.put("spring.cloud.gateway.server.webflux.routes[1].uri", shop.baseUrl());
        properties.put("spring.cloud.gateway.server.webflux.routes[1].predicates[0]", "Path=/open/**");
        return properties;
    }

    /** A shop gateway that knows its shoppers by a session cookie of its own (a stand-in for a session store). */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SessionCookieGateway {

        @Bean
        IdentityResolver sessionIdentity() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getCookies().getFirst("shop_session"))
                    .map(cookie -> cookie.getValue().substring("s-".length()));
        }
    }
}
