package io.queuegate.admission;

import java.time.Duration;
import java.util.Map;

import io.queuegate.store.ProductQueues;
import io.queuegate.support.Lines;
import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request flow of docs/http-contract.md through a running gateway, on a real Redis, with WireMock as
 * the shop: join, admit, wait, complete, leave, status.
 */
class AdmissionFlowTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of(
                    "max-active", "2",
                    "session-ttl", "1m",
                    "promotion", "pubsub",
                    "complete-on", "POST /api/products/{productId}/orders"))
            .withOpenRoute("open", "/open/**");

    @Test
    void admitsAtOnceWhileAPlaceIsFreeAndIssuesAToken() {
        EntityExchangeResult<String> result = get("42", "alice", null)
                .expectStatus().isOk()
                .expectHeader().exists("Queue-Token")
                .expectBody(String.class).isEqualTo("{\"product\":\"ok\"}")
                .returnResult();
        String cookie = result.getResponseHeaders().getFirst(HttpHeaders.SET_COOKIE);
        assertThat(cookie).startsWith("queue_token=").containsIgnoringCase("HttpOnly").contains("SameSite=Lax");
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/api/products/42"))
                .withHeader("X-User-Id", equalTo("alice")).withHeader("Queue-Token", absent()));
    }

    @Test
    void aTokenHoldersRequestReachesTheShopWithoutTheTokenButWithEverythingElse() {
        String token = get("42", "alice", null).expectStatus().isOk().returnResult(String.class)
                .getResponseHeaders().getFirst("Queue-Token");
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", token)
                .header("X-Shop-Trace", "t-1").exchange().expectStatus().isOk().expectBody().returnResult();
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/api/products/42"))
                .withHeader("X-Shop-Trace", equalTo("t-1")).withHeader("X-User-Id", equalTo("alice"))
                .withHeader("Queue-Token", absent()));
        // A wait token is a credential of the waiting room: no route's backend receives it.
        fixture.client().get().uri("/open/thing").header("Queue-Token", token).header("Cookie", "queue_token=" + token)
                .exchange().expectStatus().isOk().expectBody().returnResult();
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/open/thing")).withHeader("Queue-Token", absent())
                .withHeader("Cookie", absent()));
    }

    @Test
    void answersEveryoneBeyondMaxActiveWith429AndTheirRank() {
        get("42", "alice", null).expectStatus().isOk();
        get("42", "bob", null).expectStatus().isOk();
        EntityExchangeResult<byte[]> waiting = get("42", "carol", null)
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Retry-After", "1")
                .expectHeader().valueEquals("Queue-Rank", "1")
                .expectHeader().contentType(MediaType.APPLICATION_JSON)
                .expectBody()
                .jsonPath("$.status").isEqualTo("WAITING")
                .jsonPath("$.productId").isEqualTo("42")
                .jsonPath("$.userId").isEqualTo("carol")
                .jsonPath("$.rank").isEqualTo(1)
                .jsonPath("$.retryAfterSeconds").isEqualTo(1)
                // two admissions within the first second: too little history for an estimate
                .jsonPath("$.estimatedWaitSeconds").isEmpty()
                .returnResult();
        String token = waiting.getResponseHeaders().getFirst("Queue-Token");
        assertThat(new String(waiting.getResponseBody())).contains("\"token\":\"" + token + "\"")
                .contains("\"estimatedWaitSeconds\":null");
        get("42", "dave", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Queue-Rank", "2");
        fixture.backend().verify(0, getRequestedFor(urlPathEqualTo("/api/products/42")).withHeader("X-User-Id", equalTo("carol")));
        // The line as the store reads it for audits and tools, in order.
        assertThat(fixture.gateway().bean(ProductQueues.class).line("42", 10).block()).containsExactly("carol", "dave");
    }

    @Test
    void joiningAgainKeepsTheFirstPlace() {
        fill("42");
        get("42", "carol", null).expectHeader().valueEquals("Queue-Rank", "1");
        get("42", "dave", null).expectHeader().valueEquals("Queue-Rank", "2");
        get("42", "carol", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Queue-Rank", "1");
    }

    @Test
    void anActiveTokenPassesAndAWaitingTokenGetsItsCurrentRank() {
        String alice = tokenOf(get("42", "alice", null).expectStatus().isOk());
        get("42", "bob", null);
        String carol = tokenOf(get("42", "carol", null));
        get("42", "alice", alice).expectStatus().isOk().expectHeader().doesNotExist("Queue-Token");
        get("42", "carol", carol).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Queue-Rank", "1");
    }

    @Test
    void completionFreesThePlaceAndPromotesTheNextInLineAtOnce() {
        String alice = tokenOf(get("42", "alice", null));
        get("42", "bob", null);
        String carol = tokenOf(get("42", "carol", null));
        String dave = tokenOf(get("42", "dave", null));

        order("42", "alice", alice).expectStatus().isCreated();

        status("42", "carol", carol).expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("ACTIVE").jsonPath("$.rank").doesNotExist();
        get("42", "carol", carol).expectStatus().isOk();
        status("42", "dave", dave).expectBody().jsonPath("$.status").isEqualTo("WAITING").jsonPath("$.rank").isEqualTo(1);
        // A completed session is over: the old token joins again, at the back.
        get("42", "alice", alice).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Queue-Rank", "2");
    }

    @Test
    void aFailedCompletionKeepsTheSession() {
        String alice = tokenOf(get("soldout", "alice", null).expectStatus().isOk());
        order("soldout", "alice", alice).expectStatus().isEqualTo(HttpStatus.CONFLICT);
        status("soldout", "alice", alice).expectBody().jsonPath("$.status").isEqualTo("ACTIVE");
    }

    @Test
    void leavingGivesThePlaceToTheNextInLine() {
        String alice = tokenOf(get("42", "alice", null));
        get("42", "bob", null);
        String carol = tokenOf(get("42", "carol", null));
        String dave = tokenOf(get("42", "dave", null));

        leave("42", "carol", carol).expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("LEFT").jsonPath("$.userId").isEqualTo("carol");
        status("42", "dave", dave).expectBody().jsonPath("$.rank").isEqualTo(1);

        leave("42", "alice", alice).expectStatus().isOk();
        status("42", "dave", dave).expectBody().jsonPath("$.status").isEqualTo("ACTIVE");
        status("42", "alice", alice).expectBody().jsonPath("$.status").isEqualTo("NOT_FOUND");
        leave("42", "alice", alice).expectBody().jsonPath("$.status").isEqualTo("NOT_FOUND");
    }

    @Test
    void statusNeverJoins() {
        String carol = tokenOf(get("7", "carol", null));
        leave("7", "carol", carol);
        status("7", "carol", carol).expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("NOT_FOUND").jsonPath("$.userId").isEqualTo("carol");
        assertThat(Lines.of(fixture.redis().commands(), "7")).isEmpty();
        assertThat(fixture.redis().commands().zcard("qg:{7}:active")).isZero();
        fixture.client().get().uri("/queue/7/status").exchange().expectStatus().isUnauthorized()
                .expectBody().jsonPath("$.error").isEqualTo("invalid_token");
    }

    @Test
    void anAnonymousCallerGetsAGatewayMadeIdThatItsTokenKeeps() {
        fill("42");
        EntityExchangeResult<byte[]> first = fixture.client().get().uri("/api/products/42").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS).expectBody().returnResult();
        String token = first.getResponseHeaders().getFirst("Queue-Token");
        String body = new String(first.getResponseBody());
        assertThat(body).containsPattern("\"userId\":\"anon-[A-Za-z0-9_-]{22}\"");
        get("42", null, null).expectHeader().valueEquals("Queue-Rank", "2");
        fixture.client().get().uri("/api/products/42").header("Queue-Token", token).exchange()
                .expectHeader().valueEquals("Queue-Rank", "1");
        // The cookie works as well as the header.
        fixture.client().get().uri("/api/products/42").cookie("queue_token", token).exchange()
                .expectHeader().valueEquals("Queue-Rank", "1");
    }

    @Test
    void aBrowserGetsTheWaitingPageAndAnHttpOnlyCookie() {
        fill("42");
        EntityExchangeResult<String> page = fixture.client().get().uri("/api/products/42")
                .header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
                .exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectBody(String.class).returnResult();
        assertThat(page.getResponseBody()).contains("data-rank=\"1\"").contains("http-equiv=\"refresh\"");
        assertThat(page.getResponseHeaders().getFirst(HttpHeaders.SET_COOKIE)).containsIgnoringCase("HttpOnly");
    }

    @Test
    void routesWithoutAQueueBlockPassUntouched() {
        fixture.client().get().uri("/open/anything").exchange().expectStatus().isOk()
                .expectHeader().doesNotExist("Queue-Token").expectBody(String.class).isEqualTo("open");
        // Product keys only: an earlier test's batched registration (qg:products, qg:due) may land any time.
        assertThat(fixture.redis().commands().keys("qg:{*")).isEmpty();
    }

    @Test
    void aProductWithoutQueueKeysIsAdmittedOnItsOwnQueue() {
        fill("42");
        get("7", "carol", null).expectStatus().isOk();
    }

    private void fill(String productId) {
        get(productId, "alice", null).expectStatus().isOk();
        get(productId, "bob", null).expectStatus().isOk();
    }

    private WebTestClient.ResponseSpec get(String productId, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> spec = fixture.client().get().uri("/api/products/" + productId);
        if (user != null) {
            spec = spec.header("X-User-Id", user);
        }
        if (token != null) {
            spec = spec.header("Queue-Token", token);
        }
        return spec.exchange();
    }

    private WebTestClient.ResponseSpec order(String productId, String user, String token) {
        return fixture.client().post().uri("/api/products/" + productId + "/orders")
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    private WebTestClient.ResponseSpec status(String productId, String user, String token) {
        return fixture.client().get().uri("/queue/" + productId + "/status")
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    private WebTestClient.ResponseSpec leave(String productId, String user, String token) {
        return fixture.client().delete().uri("/queue/" + productId)
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    private static String tokenOf(WebTestClient.ResponseSpec response) {
        String token = response.expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        assertThat(token).isNotBlank();
        return token;
    }
}
