package io.queuegate.admission;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.Keys;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Invites;
import io.queuegate.support.Lines;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code invites: required}, from an attacker's side: nobody takes a place without a valid
 * invitation, an invitation makes at most its {@code uses} places however many shoppers race for
 * it on however many instances, and a forged, expired, edited or someone else's invitation is
 * refused. Shoppers already in line need no invitation to ask again.
 */
class InvitationsTest {

    private static final String PRODUCT = "/api/products/42";

    /** What Chromium asks for when it navigates. */
    private static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "invites", "required"))
            .with("queuegate.invites.secret", Invites.SECRET)
            // A presale that also asks every join for a proof of work.
            .with("queuegate.products.presale.join-challenge", "pow")
            // Invitations put first in line, and a purchase that is a GET (a one-click link); the
            // products it sells have places for five (their own rule: the routes that can serve
            // one product agree on the rules stored for it).
            .with("queuegate.products.7.max-active", "5")
            .with("queuegate.products.8.max-active", "5")
            .withRoute("instant", Map.of("predicates[0]", "Path=/instant/{productId}/**,/instant/{productId}",
                    "metadata.queue.max-active", "1", "metadata.queue.invites", "priority",
                    "metadata.queue.complete-on", "GET /instant/{productId}/buy"))
            .withRoute("plain", Map.of("predicates[0]", "Path=/plain/{productId}", "metadata.queue.max-active", "1"))
            .instances(2);

    @Test
    void aValidInvitationSparesTheJoinItsProofOfWork() {
        fixture.client().get().uri("/api/products/presale").header("X-User-Id", "alice").exchange()
                .expectStatus().isEqualTo(HttpStatus.PRECONDITION_REQUIRED)
                .expectBody().jsonPath("$.error").isEqualTo("challenge_required");
        fixture.client().get().uri("/api/products/presale").header("X-User-Id", "alice")
                .header("Queue-Invite", Invites.forProduct("presale")).exchange()
                .expectStatus().isOk();
        assertThat(fixture.redis().commands().zrange("qg:{presale}:active", 0, -1)).containsExactly("alice");
    }

    @Test
    void aJoinWithoutAnInvitationTakesNoPlace() {
        join(fixture.gateway(0), "alice", null).expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("invite_required");
        anonymous(fixture.gateway(1), null).expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("invite_required");
        assertThat(fixture.redis().commands().exists("qg:{42}:seq")).as("no ticket was handed out").isZero();
        assertThat(fixture.redis().commands().zcard("qg:{42}:active")).isZero();
        fixture.backend().verify(0, getRequestedFor(urlPathEqualTo(PRODUCT)));
    }

    @Test
    void aValidInvitationTakesAPlaceAndNeverReachesTheShop() {
        join(fixture.gateway(0), "alice", Invites.forProduct("42")).expectStatus().isOk();
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo(PRODUCT)).withHeader("Queue-Invite", absent()));
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).containsExactly("alice");
        // bob's invitation puts him in line behind alice.
        join(fixture.gateway(1), "bob", Invites.forProduct("42")).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Queue-Rank", "1");
    }

    @Test
    void theInviteLinkParameterWorksAndTheShopSeesTheAddressWithoutIt() {
        String invitation = Invites.forProduct("42");
        fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + PRODUCT + "?color=red&invite=" + invitation
                + "&size=44")).header("X-User-Id", "alice").exchange().expectStatus().isOk();
        fixture.backend().verify(1, getRequestedFor(urlEqualTo(PRODUCT + "?color=red&size=44")));
        // Its name percent-encoded, alone: still the invitation, still taken out.
        fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + PRODUCT + "?%69nvite="
                + Invites.forProduct("42"))).header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        assertThat(fixture.backend().getAllServeEvents()).allSatisfy(event ->
                assertThat(event.getRequest().getUrl()).doesNotContain("nvite").doesNotContain(invitation));
    }

    /**
     * A browser admitted at once would show the shop's page with the invitation still in the
     * address bar, to be bookmarked, shared or synced: it is sent to the same address without it,
     * holding its place by the cookie, and only that request reaches the shop.
     */
    @Test
    void aBrowserAdmittedAtOnceIsSentToTheAddressWithoutTheInvitation() {
        String invitation = Invites.forProduct("42");
        var redirect = fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + PRODUCT + "?color=red&invite="
                        + invitation + "&size=44")).header("X-User-Id", "alice").header("Accept", BROWSER).exchange()
                .expectStatus().isEqualTo(HttpStatus.SEE_OTHER)
                .expectHeader().valueEquals("Location", PRODUCT + "?color=red&size=44")
                .expectHeader().valueEquals("Referrer-Policy", "no-referrer")
                .expectHeader().valueEquals("Cache-Control", "no-store")
                .expectBody().isEmpty();
        String cookie = redirect.getResponseCookies().getFirst("queue_token").getValue();
        assertThat(cookie).isNotEmpty();
        assertThat(fixture.backend().getAllServeEvents()).as("the shop saw nothing yet").isEmpty();
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).containsExactly("alice");

        fixture.client().get().uri(PRODUCT + "?color=red&size=44").header("X-User-Id", "alice")
                .header("Accept", BROWSER).cookie("queue_token", cookie).exchange()
                .expectStatus().isOk().expectHeader().valueEquals("Referrer-Policy", "no-referrer");
        fixture.backend().verify(1, getRequestedFor(urlEqualTo(PRODUCT + "?color=red&size=44")));
        assertThat(fixture.redis().commands().get("qg:{42}:invite:" + jti(invitation))).isEqualTo("1");
        // The same link again, once admitted: the address is cleaned again, and the invitation uses nothing more.
        fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + PRODUCT + "?invite=" + invitation))
                .header("X-User-Id", "alice").header("Accept", BROWSER).cookie("queue_token", cookie).exchange()
                .expectStatus().isEqualTo(HttpStatus.SEE_OTHER).expectHeader().valueEquals("Location", PRODUCT);
        assertThat(fixture.redis().commands().get("qg:{42}:invite:" + jti(invitation))).isEqualTo("1");
    }

    /**
     * No address bar to clean: a JSON client is forwarded at once (a redirect would only cost it
     * a round trip), and so is a POST (a redirect would lose its body) and a GET that completes
     * the session (its claim is taken: a redirect would answer its repetition 409).
     */
    @Test
    void aJsonClientAPostAndAPurchaseAdmittedAtOnceAreForwarded() {
        fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + PRODUCT + "?invite="
                        + Invites.forProduct("42"))).header("X-User-Id", "alice").exchange()
                .expectStatus().isOk().expectHeader().valueEquals("Referrer-Policy", "no-referrer");
        fixture.client().post().uri(URI.create(fixture.gateway().baseUrl() + "/instant/7/orders?invite="
                        + Invites.forProduct("7"))).header("X-User-Id", "bob").header("Accept", BROWSER)
                .bodyValue("size=44").exchange()
                .expectStatus().value(status -> assertThat(status).isNotEqualTo(303))
                .expectHeader().valueEquals("Referrer-Policy", "no-referrer");
        fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + "/instant/7/buy?invite="
                        + Invites.forProduct("7"))).header("X-User-Id", "carol").header("Accept", BROWSER).exchange()
                .expectStatus().value(status -> assertThat(status).isNotEqualTo(303))
                .expectHeader().valueEquals("Referrer-Policy", "no-referrer");
        fixture.backend().verify(1, getRequestedFor(urlEqualTo(PRODUCT)));
        fixture.backend().verify(1, postRequestedFor(urlEqualTo("/instant/7/orders")).withRequestBody(equalTo("size=44")));
        fixture.backend().verify(1, getRequestedFor(urlEqualTo("/instant/7/buy")));
    }

    /**
     * Wherever an invitation can be in the address, no answer lets the browser send that address
     * on as a Referer: the waiting room's own answers, and the shop's, whatever policy it set.
     */
    @Test
    void everyAnswerOnAnInvitationRouteForbidsTheReferer() {
        fixture.backend().stubFor(com.github.tomakehurst.wiremock.client.WireMock.get(urlPathEqualTo("/api/products/43"))
                .willReturn(aResponse().withStatus(200).withHeader("Referrer-Policy", "unsafe-url").withBody("shop")));
        fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + "/api/products/43?invite="
                        + Invites.forProduct("43"))).header("X-User-Id", "alice").exchange()
                .expectStatus().isOk().expectHeader().valueEquals("Referrer-Policy", "no-referrer");
        for (String accept : new String[] { "application/json", BROWSER }) {
            fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + "/api/products/43?invite="
                            + Invites.forProduct("43"))).header("X-User-Id", "bob").header("Accept", accept).exchange()
                    .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                    .expectHeader().valueEquals("Referrer-Policy", "no-referrer");
            fixture.client().get().uri(PRODUCT + "?invite=garbage").header("Accept", accept).exchange()
                    .expectStatus().isForbidden().expectHeader().valueEquals("Referrer-Policy", "no-referrer");
            fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + "/instant/8?invite="
                            + Invites.forProduct("8"))).header("X-User-Id", "carol").header("Accept", accept)
                    .header("Queue-Token", "garbage").exchange()
                    .expectStatus().isUnauthorized().expectHeader().valueEquals("Referrer-Policy", "no-referrer");
        }
        // Where invites is off, the parameter is the shop's, and so is the policy.
        fixture.client().get().uri("/plain/7?invite=x").header("X-User-Id", "dave").exchange()
                .expectHeader().doesNotExist("Referrer-Policy");
    }

    @Test
    void anInvitationUsedUpIsRefusedToTheNextShopper() {
        String invitation = Invites.mint("42", null, 1);
        join(fixture.gateway(0), "alice", invitation).expectStatus().isOk();
        join(fixture.gateway(1), "bob", invitation).expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("invite_used");
        anonymous(fixture.gateway(0), invitation).expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("invite_used");
        assertThat(fixture.redis().commands().get("qg:{42}:invite:" + jti(invitation))).isEqualTo("1");
    }

    @Test
    void shoppersRacingForOneInvitationOnTwoInstancesGetExactlyItsUses() {
        String invitation = Invites.mint("42", null, 3);
        List<Integer> statuses = Flux.range(0, 24)
                .parallel(24).runOn(Schedulers.boundedElastic())
                .map(i -> join(fixture.gateway(i % 2), "racer" + i, invitation).expectBody().returnResult()
                        .getStatus().value())
                .sequential().collectList().block(Duration.ofSeconds(60));

        assertThat(statuses).filteredOn(status -> status == 200 || status == 429).hasSize(3);
        assertThat(statuses).filteredOn(status -> status == 403).hasSize(21);
        long places = fixture.redis().commands().zcard("qg:{42}:active") + Lines.of(fixture.redis().commands(), "42").size();
        assertThat(places).isEqualTo(3);
        assertThat(fixture.redis().commands().get("qg:{42}:invite:" + jti(invitation))).isEqualTo("3");
    }

    @Test
    void aShopperInLineOrAdmittedBringingTheInvitationAgainUsesNothing() {
        String invitation = Invites.mint("42", null, 2);
        join(fixture.gateway(0), "alice", invitation).expectStatus().isOk();
        join(fixture.gateway(1), "bob", invitation).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        // Both again, without their tokens (an app that lost them), with the invitation: same places.
        join(fixture.gateway(1), "alice", invitation).expectStatus().isOk();
        join(fixture.gateway(0), "bob", invitation).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Queue-Rank", "1");
        assertThat(fixture.redis().commands().get("qg:{42}:invite:" + jti(invitation))).isEqualTo("2");
    }

    @Test
    void aWaitTokenIsEnoughToAskAgainButNotToComeBackAfterTheWayOut() {
        join(fixture.gateway(0), "alice", Invites.forProduct("42")).expectStatus().isOk();
        String bob = join(fixture.gateway(0), "bob", Invites.forProduct("42"))
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS).returnResult(String.class)
                .getResponseHeaders().getFirst("Queue-Token");
        withToken(fixture.gateway(1), "bob", bob).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        fixture.gateway(1).client().get().uri("/queue/42/status").header("Queue-Token", bob).exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("WAITING");

        // bob leaves: his token alone takes no new place.
        fixture.gateway(0).client().delete().uri("/queue/42").header("X-User-Id", "bob").header("Queue-Token", bob)
                .exchange().expectStatus().isOk();
        // Within a second: the other instance may answer from its view of the line until it reads the leave.
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> withToken(fixture.gateway(1), "bob", bob)
                .expectStatus().isForbidden().expectBody().jsonPath("$.error").isEqualTo("invite_required"));
    }

    @Test
    void forgedExpiredEditedAndOtherPeoplesInvitationsAreRefused() {
        String otherSecret = "a-secret-the-shop-never-gave-anyone-0123456789abcdef";
        Map<String, String> refused = Map.of(
                "forged", Invites.mint(otherSecret, "42", null, 1, Instant.now().plusSeconds(3600)),
                "expired", Invites.mint(Invites.SECRET, "42", null, 1, Instant.now().minusSeconds(120)),
                "edited", Invites.tampered(Invites.forProduct("7"), "42"),
                "other product", Invites.forProduct("7"),
                "other shopper", Invites.mint("42", "carol", 1),
                "unsigned", Invites.unsigned("42"),
                "not a JWT", "hello",
                "wait token", join(fixture.gateway(0), "dave", Invites.forProduct("42")).returnResult(String.class)
                        .getResponseHeaders().getFirst("Queue-Token"));
        refused.forEach((what, invitation) -> {
            var answer = join(fixture.gateway(1), "mallory", invitation).expectBody(String.class).returnResult();
            assertThat(answer.getStatus()).as(what).isEqualTo(HttpStatus.FORBIDDEN);
            assertThat(answer.getResponseBody()).as(what).contains("\"error\":\"invite_invalid\"");
        });
        assertThat(Lines.of(fixture.redis().commands(), "42")).doesNotContain("mallory");
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).containsExactly("dave");
    }

    @Test
    void anInvitationForOneShopperWorksForThemAndAnyProductInvitationForEveryProduct() {
        join(fixture.gateway(0), "carol", Invites.mint("42", "carol", 1)).expectStatus().isOk();
        join(fixture.gateway(1), "erin", Invites.mint("*", null, 1)).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        // Anonymous callers are nobody's invitation's shopper.
        anonymous(fixture.gateway(0), Invites.mint("42", "carol", 1)).expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("invite_invalid");
    }

    @Test
    void twoInvitationsInOneRequestAreRefusedNotGuessedAt() {
        fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + PRODUCT + "?invite="
                        + Invites.forProduct("42") + "&invite=" + Invites.forProduct("42")))
                .header("X-User-Id", "alice").exchange().expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("invite_invalid");
    }

    @Test
    void aBrowserWithoutAnInvitationIsShownAPageSayingSo() {
        String page = fixture.client().get().uri(PRODUCT).header("Accept", "text/html").exchange()
                .expectStatus().isForbidden().expectBody(String.class).returnResult().getResponseBody();
        assertThat(page).contains("Invitation only");
    }

    @Test
    void anInvitationMintedAsDropsMdShowsJoins() {
        String secret = Invites.SECRET;
        // The snippet of docs/drops.md ("Minting invitations"), with this test's product.
        String invitation = Jwts.builder()
                .id(UUID.randomUUID().toString())
                .claim("pid", "42")
                .subject("alice")
                .claim("uses", 2)
                .expiration(Date.from(Instant.now().plus(Duration.ofDays(7))))
                .signWith(Keys.hmacShaKeyFor(secret.getBytes(StandardCharsets.UTF_8)), Jwts.SIG.HS256)
                .compact();
        fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + PRODUCT + "?invite=" + invitation))
                .header("X-User-Id", "alice").exchange().expectStatus().isOk();
        join(fixture.gateway(1), "bob", invitation).expectStatus().isForbidden()
                .expectBody().jsonPath("$.message").isEqualTo("the invitation is for another shopper");
    }

    static String jti(String invitation) {
        String payload = new String(java.util.Base64.getUrlDecoder().decode(invitation.split("\\.")[1]),
                java.nio.charset.StandardCharsets.UTF_8);
        return payload.replaceFirst(".*\"jti\":\"([^\"]+)\".*", "$1");
    }

    private static WebTestClient.ResponseSpec join(GatewayInstance gateway, String user, String invitation) {
        WebTestClient.RequestHeadersSpec<?> request = gateway.client().get().uri(PRODUCT).header("X-User-Id", user);
        if (invitation != null) {
            request = request.header("Queue-Invite", invitation);
        }
        return request.exchange();
    }

    private static WebTestClient.ResponseSpec anonymous(GatewayInstance gateway, String invitation) {
        WebTestClient.RequestHeadersSpec<?> request = gateway.client().get().uri(PRODUCT);
        if (invitation != null) {
            request = request.header("Queue-Invite", invitation);
        }
        return request.exchange();
    }

    private static WebTestClient.ResponseSpec withToken(GatewayInstance gateway, String user, String token) {
        return gateway.client().get().uri(PRODUCT).header("X-User-Id", user).header("Queue-Token", token).exchange();
    }
}
