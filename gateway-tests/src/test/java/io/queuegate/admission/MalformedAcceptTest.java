package io.queuegate.admission;

import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.Invites;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An {@code Accept} header that does not parse is read as {@code *}{@code /*}: JSON, the answer
 * any client can read, on every answer that chooses between the page and JSON (waiting, the
 * proof-of-work challenge, a refusal with a notice page). Never a 500 after the place was made,
 * and nothing in the log per request: a client can send one with every request.
 */
@ExtendWith(OutputCaptureExtension.class)
class MalformedAcceptTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1"))
            .with("queuegate.products.pow.join-challenge", "pow")
            .with("queuegate.invites.secret", Invites.SECRET)
            .withRoute("presale", Map.of("predicates[0]", "Path=/presale/{productId}",
                    "metadata.queue.max-active", "1", "metadata.queue.invites", "required"));

    @BeforeEach
    void someoneHoldsTheOnePlace() {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "holder").exchange()
                .expectStatus().isOk();
    }

    @ParameterizedTest
    @ValueSource(strings = { "text/html;q=abc", "text/html;q=2", "text/html;q=", "*/html", "text/",
            "text/html;charset=\"unclosed", "text/html, application/json;q=abc", ";;;", "/" })
    void aWaitingShopperWithAnAcceptThatDoesNotParseGetsTheJsonAnswer(String accept, CapturedOutput output) {
        EntityExchangeResult<String> waiting = fixture.client().get().uri("/api/products/42")
                .header("X-User-Id", "alice").header("Accept", accept).exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();
        assertThat(waiting.getResponseBody()).contains("\"status\":\"WAITING\"").contains("\"rank\":1");
        String token = waiting.getResponseHeaders().getFirst("Queue-Token");

        // The same shopper again, and on the endpoints, with the same header.
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", token)
                .header("Accept", accept).exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON);
        fixture.client().get().uri("/queue/42/status").header("Queue-Token", token).header("Accept", accept)
                .exchange().expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("WAITING");
        fixture.client().get().uri("/queue/42/status").header("Accept", accept).exchange()
                .expectStatus().isUnauthorized().expectBody().jsonPath("$.error").isEqualTo("invalid_token");
        assertNothingLogged(output);
    }

    @Test
    void aJoinThatMustPayAProofOfWorkGetsTheJsonChallenge(CapturedOutput output) {
        fixture.client().get().uri("/api/products/pow").header("X-User-Id", "alice").header("Accept", "text/html;q=abc")
                .exchange().expectStatus().isEqualTo(HttpStatus.PRECONDITION_REQUIRED)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody().jsonPath("$.error").isEqualTo("challenge_required")
                .jsonPath("$.challenge.salt").isNotEmpty();
        assertNothingLogged(output);
    }

    @Test
    void aRefusalThatHasANoticePageIsTheJsonError(CapturedOutput output) {
        fixture.client().get().uri("/presale/7").header("X-User-Id", "alice").header("Accept", "text/html;q=abc")
                .exchange().expectStatus().isForbidden()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody().jsonPath("$.error").isEqualTo("invite_required");
        assertNothingLogged(output);
    }

    @Test
    void aBrowserWhoseAcceptLanguageDoesNotParseGetsThePageInEnglish(CapturedOutput output) {
        String page = fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice")
                .header("Accept", "text/html").header("Accept-Language", "ko;q=abc").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(page).contains("lang=\"en\"");
        assertNothingLogged(output);
    }

    private static void assertNothingLogged(CapturedOutput output) {
        assertThat(output.getAll()).as("the log").doesNotContain("InvalidMediaTypeException")
                .doesNotContain("Invalid mime type").doesNotContain("500 Server Error").doesNotContain("\tat ");
    }
}
