package io.queuegate.admission;

import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Tokens;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bind-token: network} from the side of someone a token was passed to: presented from
 * another network (another IPv4 /24, another IPv6 /64, as the trusted proxy's
 * {@code X-Forwarded-For} says) a token is refused with {@code 403 token_bound}, also on the other
 * instance; from the same network it works. A token bound to nothing counts for nothing on a
 * bound product, and another product's cookie lends no place from another network.
 */
class TokenBindingTest {

    private static final String HOME = "203.0.113.7";
    private static final String NEIGHBOUR = "203.0.113.200";
    private static final String TRAIN = "198.51.100.7";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m",
                    "bind-token", "network"))
            .with("queuegate.products.free.bind-token", "none")
            .instances(2);

    @Test
    void aTokenFromAnotherNetworkIsRefusedAndOneFromTheSameSlash24Accepted() {
        String alice = tokenOf(request(0, HOME).header("X-User-Id", "alice").exchange().expectStatus().isOk());
        String bob = tokenOf(request(0, HOME).header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS));

        request(1, TRAIN).header("X-User-Id", "alice").header("Queue-Token", alice).exchange()
                .expectStatus().isForbidden()
                .expectBody()
                .jsonPath("$.error").isEqualTo("token_bound")
                .jsonPath("$.message").value(message -> assertThat((String) message)
                        .contains("bound to the network it was issued to").contains("Wi-Fi to mobile data"));
        request(1, TRAIN).header("X-User-Id", "bob").header("Queue-Token", bob).exchange()
                .expectStatus().isForbidden().expectBody().jsonPath("$.error").isEqualTo("token_bound");

        // Another address of the same /24: a carrier's NAT may move a shopper there.
        request(1, NEIGHBOUR).header("X-User-Id", "alice").header("Queue-Token", alice).exchange()
                .expectStatus().isOk();
        request(0, NEIGHBOUR).header("X-User-Id", "bob").header("Queue-Token", bob).exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.status").isEqualTo("WAITING");
        // The shop saw alice's two requests from her network, and nothing from the train.
        fixture.backend().verify(2, anyRequestedFor(anyUrl()));
    }

    @Test
    void anIpv6TokenIsBoundToItsSlash64() {
        String token = tokenOf(request(0, "2001:db8:1:2::5").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk());
        request(1, "2001:db8:1:2:ffff:ffff:ffff:1").header("X-User-Id", "alice").header("Queue-Token", token)
                .exchange().expectStatus().isOk();
        request(1, "2001:db8:1:3::5").header("X-User-Id", "alice").header("Queue-Token", token)
                .exchange().expectStatus().isForbidden().expectBody().jsonPath("$.error").isEqualTo("token_bound");
    }

    @Test
    void theTokenShowsAKeyedHashOfTheNetworkNeverTheAddress() {
        String token = tokenOf(request(0, HOME).header("X-User-Id", "alice").exchange().expectStatus().isOk());
        String claims = new String(java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1]),
                java.nio.charset.StandardCharsets.UTF_8);
        assertThat(claims).containsPattern("\"net\":\"[A-Za-z0-9_-]{12}\"").doesNotContain("203.0.113");
    }

    @Test
    void aTokenBoundToNoNetworkCountsForNothingOnABoundProduct() {
        // Signed with the real secret (the previous release's tokens, or ones from before the
        // product was bound): it could have been passed around.
        String unbound = Tokens.codec(GatewayInstance.SECRET).issue("42", "alice", false);
        request(0, HOME).header("X-User-Id", "alice").header("Queue-Token", unbound).exchange()
                .expectStatus().isForbidden()
                .expectBody()
                .jsonPath("$.error").isEqualTo("token_bound")
                .jsonPath("$.message").value(message -> assertThat((String) message).contains("bound to none"));
        // As the cookie it is dropped, so the browser's next request joins again.
        request(0, HOME).cookie("queue_token", unbound).exchange()
                .expectStatus().isForbidden()
                .expectHeader().value(HttpHeaders.SET_COOKIE, set -> assertThat(set)
                        .startsWith("queue_token=;").contains("Max-Age=0"));
    }

    @Test
    void aBoundCookieFromAnotherNetworkGetsTheNoticePageAndIsDropped() {
        String cookie = tokenOf(request(0, HOME).exchange().expectStatus().isOk());

        request(1, TRAIN).cookie("queue_token", cookie).header("Accept", "text/html").exchange()
                .expectStatus().isForbidden()
                .expectHeader().contentTypeCompatibleWith("text/html")
                .expectHeader().value(HttpHeaders.SET_COOKIE, set -> assertThat(set).startsWith("queue_token=;"))
                .expectBody(String.class).value(html -> assertThat(html)
                        .contains("Your place belongs to another network").contains("mobile data"));
        fixture.backend().verify(1, anyRequestedFor(anyUrl()));
    }

    @Test
    void theStatusEndpointHoldsABoundTokenToItsNetworkButNeverDropsThePagesCookie() {
        request(0, HOME).header("X-User-Id", "alice").exchange().expectStatus().isOk();
        String bob = tokenOf(request(0, HOME).exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS));

        fixture.gateway(1).client().get().uri("/queue/42/status").header("X-Forwarded-For", TRAIN)
                .cookie("queue_token", bob).exchange()
                .expectStatus().isForbidden()
                .expectHeader().doesNotExist(HttpHeaders.SET_COOKIE)
                .expectBody().jsonPath("$.error").isEqualTo("token_bound");
        // Back home (a brief switch of network), the place is still there.
        fixture.gateway(1).client().get().uri("/queue/42/status").header("X-Forwarded-For", HOME)
                .cookie("queue_token", bob).exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("WAITING");
    }

    @Test
    void anotherProductsCookieLendsNoPlaceFromAnotherNetwork() {
        // The victim, anonymous, joins 43 and then 42 from home; the cookie of 43 carries the
        // anonymous id into 42, where the victim is admitted.
        String forty3 = tokenOf(fixture.gateway(0).client().get().uri("/api/products/43")
                .header("X-Forwarded-For", HOME).exchange().expectStatus().isOk());
        request(0, HOME).cookie("queue_token", forty3).exchange().expectStatus().isOk();
        assertThat(fixture.redis().commands().zcard("qg:{42}:active")).isEqualTo(1);

        // The thief has the cookie of 43: on the train it lends nobody's place in 42.
        request(1, TRAIN).cookie("queue_token", forty3).exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.status").isEqualTo("WAITING");
        fixture.backend().verify(2, anyRequestedFor(anyUrl()));
    }

    @Test
    void aProductThatDoesNotBindIgnoresTheNetwork() {
        String token = tokenOf(fixture.gateway(0).client().get().uri("/api/products/free")
                .header("X-Forwarded-For", HOME).header("X-User-Id", "alice").exchange().expectStatus().isOk());
        fixture.gateway(1).client().get().uri("/api/products/free").header("X-Forwarded-For", TRAIN)
                .header("X-User-Id", "alice").header("Queue-Token", token).exchange().expectStatus().isOk();
    }

    private static WebTestClient.RequestHeadersSpec<?> request(int instance, String address) {
        return fixture.gateway(instance).client().get().uri("/api/products/42").header("X-Forwarded-For", address);
    }

    private static String tokenOf(WebTestClient.ResponseSpec response) {
        String token = response.returnResult(String.class).getResponseHeaders().getFirst("Queue-Token");
        assertThat(token).isNotBlank();
        return token;
    }
}
