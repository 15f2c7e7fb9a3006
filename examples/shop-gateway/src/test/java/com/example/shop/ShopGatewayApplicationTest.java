package com.example.shop;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.queuegate.identity.IdentityAtStartup;
import io.queuegate.identity.UserIds;
import io.queuegate.store.RedisBreaker;
import io.queuegate.store.Resilience4jBreaker;
import io.queuegate.support.Backend;
import io.queuegate.support.Lines;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The shop's gateway as it runs in production: Spring Security validates the shop's JWTs, the
 * route with a {@code queue} block is a waiting room that queues each shopper as their JWT's
 * subject, and the other routes are left alone. Real JWTs signed with a key made for the run, a
 * real Redis, and a WireMock shop that records what reaches it.
 */
class ShopGatewayApplicationTest {

    private static final String PRODUCT = "/api/products/42";

    private static final String IDENTITY = "X-User-Id";

    private static final String QUEUE_TOKEN = "Queue-Token";

    private static RedisProcess redis;
    private static WireMockServer shop;
    private static ShopIdentityProvider identityProvider;
    private static ConfigurableApplicationContext gateway;
    private static WebTestClient client;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        shop = Backend.start();
        identityProvider = ShopIdentityProvider.start();
        gateway = new SpringApplicationBuilder(ShopGatewayApplication.class).run(
                "--server.port=0",
                "--SHOP_URI=" + shop.baseUrl(),
                "--SHOP_JWK_SET_URI=" + identityProvider.jwkSetUri(),
                "--SHOP_JWT_ISSUER=" + ShopIdentityProvider.ISSUER,
                "--SHOP_JWT_AUDIENCE=" + ShopIdentityProvider.AUDIENCE,
                "--QUEUEGATE_TOKEN_SECRET=the-shops-own-secret-of-at-least-32-bytes",
                "--spring.data.redis.port=" + redis.port());
        int port = ((WebServerApplicationContext) gateway).getWebServer().getPort();
        client = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
    }

    @AfterAll
    static void stop() {
        gateway.close();
        identityProvider.close();
        shop.stop();
        redis.close();
    }

    @BeforeEach
    void emptyLineAndShop() {
        redis.flushAll();
        shop.resetRequests();
    }

    @Test
    void startupNamesTheIdentitySourceInForceWithoutAWarning() {
        IdentityAtStartup.Line line = gateway.getBean(IdentityAtStartup.class).line();
        assertThat(line.warning()).as(line.text()).isFalse();
        assertThat(line.text()).contains("the principal Spring Security authenticated");
    }

    @Test
    void theStarterPutsResilience4jsCircuitBreakerInFrontOfRedis() {
        // queuegate-spring-boot-starter brings Resilience4j, which the library only takes if present
        assertThat(gateway.getBeanProvider(RedisBreaker.class).getIfAvailable()).isInstanceOf(Resilience4jBreaker.class);
        assertThat(gateway.getBean(RedisBreaker.class).state()).isEqualTo("CLOSED");
    }

    @Test
    void aliceAndBobSignedInWithTheShopsJwtsQueueAsThemselves() {
        client.get().uri(PRODUCT).headers(bearer("alice")).exchange()
                .expectStatus().isOk()
                .expectHeader().exists(QUEUE_TOKEN);
        client.get().uri(PRODUCT).headers(bearer("bob")).exchange()
                .expectStatus().isEqualTo(429)
                .expectHeader().valueEquals("Queue-Rank", "1")
                .expectBody()
                .jsonPath("$.status").isEqualTo("WAITING")
                .jsonPath("$.userId").isEqualTo("bob")
                .jsonPath("$.rank").isEqualTo(1);

        assertThat(identitiesTheShopSaw()).containsExactly("alice");
        assertThat(Lines.of(redis.commands(), "42")).containsExactly("bob");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jwtsTheShopDidNotIssue")
    void aJwtTheShopDidNotIssueIsRefusedBeforeItCanTakeAPlace(String jwt) {
        client.get().uri(PRODUCT).header(HttpHeaders.AUTHORIZATION, "Bearer " + jwt).exchange()
                .expectStatus().isUnauthorized()
                // Spring Security's answer, not QueueGate's own 401 for a bad wait token.
                .expectHeader().value(HttpHeaders.WWW_AUTHENTICATE,
                        challenge -> assertThat(challenge).startsWith("Bearer error=\"invalid_token\""))
                .expectHeader().doesNotExist(QUEUE_TOKEN);

        assertThat(shop.findAll(anyRequestedFor(anyUrl()))).isEmpty();
        assertThat(redis.commands().keys("qg:{42}:*")).isEmpty();
        assertThat(Lines.of(redis.commands(), "42")).isEmpty();
    }

    static Stream<Arguments> jwtsTheShopDidNotIssue() {
        String alice = "alice";
        return Stream.of(
                arguments(named("a JWT for alice signed with another RSA key under the shop's key id",
                        identityProvider.signedWithAnotherKey(alice))),
                arguments(named("an unsigned alg-none JWT for alice", identityProvider.unsigned(alice))),
                arguments(named("alice's real JWT after it expired", identityProvider.expired(alice))),
                arguments(named("a JWT for alice from another issuer", identityProvider.fromAnotherIssuer(alice))),
                arguments(named("a JWT for alice meant for another audience",
                        identityProvider.forAnotherAudience(alice))),
                arguments(named("a JWT for alice signed HS256 with the shop's public key",
                        identityProvider.macSignedWithThePublicKey(alice))));
    }

    @Test
    void aClientWithoutAJwtThatSaysItIsAliceIsAnonymousAndNeverTakesHerPlace() {
        String impostorToken = client.get().uri(PRODUCT).header(IDENTITY, "alice").exchange()
                .expectStatus().isOk()
                .returnResult(Void.class).getResponseHeaders().getFirst(QUEUE_TOKEN);
        client.get().uri("/queue/42/status").header(QUEUE_TOKEN, impostorToken).exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("ACTIVE")
                .jsonPath("$.userId").value(String.class, id -> assertThat(id).startsWith(UserIds.ANONYMOUS_PREFIX));
        // With its own place it is let through again, still as nobody in particular.
        client.get().uri(PRODUCT).header(IDENTITY, "alice").header(QUEUE_TOKEN, impostorToken).exchange()
                .expectStatus().isOk();

        // The real alice finds the room full: the impostor's place was never hers.
        client.get().uri(PRODUCT).headers(bearer("alice")).exchange()
                .expectStatus().isEqualTo(429)
                .expectBody()
                .jsonPath("$.userId").isEqualTo("alice")
                .jsonPath("$.rank").isEqualTo(1);

        assertThat(identitiesTheShopSaw()).containsExactly("(none)", "(none)");
        assertThat(Lines.of(redis.commands(), "42")).containsExactly("alice");
    }

    @Test
    void aSubjectOutsideTheIdAlphabetQueuesUnderItsHashedIdAndReachesTheShopAsItCame() {
        String first = UserIds.of("auth0|123");
        String second = UserIds.of("auth0|456");
        assertThat(first).startsWith("#");

        client.get().uri(PRODUCT).headers(bearer("auth0|123")).exchange()
                .expectStatus().isOk();
        client.get().uri(PRODUCT).headers(bearer("auth0|456")).exchange()
                .expectStatus().isEqualTo(429)
                .expectBody()
                .jsonPath("$.userId").isEqualTo(second)
                .jsonPath("$.rank").isEqualTo(1);

        // The shop is told the subject as its JWT says it; Redis and the token keep the hashed id.
        assertThat(identitiesTheShopSaw()).containsExactly("auth0|123");
        assertThat(Lines.of(redis.commands(), "42")).containsExactly(second);
    }

    @Test
    void alicesWaitTokenAloneShowsHerPlaceButOnlyHerJwtLetsHerThroughOnceAdmitted() {
        String bobToken = client.get().uri(PRODUCT).headers(bearer("bob")).exchange()
                .expectStatus().isOk()
                .returnResult(Void.class).getResponseHeaders().getFirst(QUEUE_TOKEN);
        String aliceToken = client.get().uri(PRODUCT).headers(bearer("alice")).exchange()
                .expectStatus().isEqualTo(429)
                .returnResult(Void.class).getResponseHeaders().getFirst(QUEUE_TOKEN);

        // The waiting page's polls carry the wait token (a cookie in a browser), not her JWT.
        client.get().uri("/queue/42/status").header(QUEUE_TOKEN, aliceToken).exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("WAITING")
                .jsonPath("$.userId").isEqualTo("alice")
                .jsonPath("$.rank").isEqualTo(1);

        // Bob buys; his order ends his turn and alice moves up.
        client.post().uri(PRODUCT + "/orders").headers(bearer("bob")).header(QUEUE_TOKEN, bobToken).exchange()
                .expectStatus().isCreated();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                client.get().uri("/queue/42/status").header(QUEUE_TOKEN, aliceToken).exchange()
                        .expectStatus().isOk()
                        .expectBody().jsonPath("$.status").isEqualTo("ACTIVE"));
        shop.resetRequests();

        // Whoever got hold of her token cannot shop as her with it.
        client.get().uri(PRODUCT).header(QUEUE_TOKEN, aliceToken).exchange()
                .expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("wrong_user");
        assertThat(shop.findAll(anyRequestedFor(anyUrl()))).isEmpty();

        client.get().uri(PRODUCT).headers(bearer("alice")).header(QUEUE_TOKEN, aliceToken).exchange()
                .expectStatus().isOk();
        assertThat(identitiesTheShopSaw()).containsExactly("alice");
    }

    @Test
    void theOpenRouteIsNotQueuedAndTheWaitingRoomsCredentialsNeverReachTheShop() {
        String aliceToken = client.get().uri(PRODUCT).headers(bearer("alice")).exchange()
                .expectStatus().isOk()
                .returnResult(Void.class).getResponseHeaders().getFirst(QUEUE_TOKEN);
        shop.resetRequests();

        client.get().uri("/open/anything")
                .header(QUEUE_TOKEN, aliceToken)
                .header(HttpHeaders.COOKIE, "queue_token=" + aliceToken + "; shop_session=s1")
                .header(IDENTITY, "alice")
                .exchange()
                .expectStatus().isOk()
                .expectHeader().doesNotExist(QUEUE_TOKEN)
                .expectHeader().doesNotExist("Queue-Rank");

        List<LoggedRequest> received = shop.findAll(anyRequestedFor(anyUrl()));
        assertThat(received).singleElement().satisfies(request -> {
            assertThat(request.getUrl()).isEqualTo("/open/anything");
            assertThat(request.containsHeader(QUEUE_TOKEN)).isFalse();
            assertThat(request.getHeader(HttpHeaders.COOKIE)).isEqualTo("shop_session=s1");
            assertThat(request.containsHeader(IDENTITY)).isFalse();
        });
        assertThat(redis.commands().keys("qg:{*")).allMatch(key -> key.startsWith("qg:{42}:"));
    }

    private static Consumer<HttpHeaders> bearer(String subject) {
        String jwt = identityProvider.jwtFor(subject);
        return headers -> headers.setBearerAuth(jwt);
    }

    /** The identity header of each request the shop received, or {@code (none)}. */
    private static List<String> identitiesTheShopSaw() {
        return shop.findAll(anyRequestedFor(anyUrl())).stream()
                .map(request -> request.containsHeader(IDENTITY) ? request.getHeader(IDENTITY) : "(none)")
                .toList();
    }
}
