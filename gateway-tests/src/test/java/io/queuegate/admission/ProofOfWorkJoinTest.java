package io.queuegate.admission;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import io.queuegate.challenge.Challenge;
import io.queuegate.challenge.ProofOfWork;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.PowSolver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code join-challenge: pow} from a JSON client's and an attacker's side, on two gateway
 * instances sharing one Redis: a join without a solution gets {@code 428 challenge_required} and
 * a challenge; a solved one joins; the same solution is refused on the other instance
 * ({@code 409 challenge_used}), however many times it is sent at once; a solution for another
 * product, an expired one and a forged one are refused ({@code 403 challenge_invalid}); a shopper
 * with a token never pays again. The shop never sees a challenge or an unpaid join.
 */
class ProofOfWorkJoinTest {

    private static final int DIFFICULTY = 5_000;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m",
                    "join-challenge", "pow", "pow-difficulty", Integer.toString(DIFFICULTY)))
            // Each test joins from an address of its own, but a replay storm is many joins.
            .with("queuegate.joins.max-per-address", "1000")
            .instances(2);

    private final JsonMapper json = new JsonMapper();

    @Test
    void aJoinWithoutASolutionGetsChallengeRequiredWithAChallengeAndNoPlace() {
        EntityExchangeResult<byte[]> refused = join(fixture.gateway(0), null, "203.0.113.1")
                .expectStatus().isEqualTo(HttpStatus.PRECONDITION_REQUIRED)
                .expectHeader().cacheControl(org.springframework.http.CacheControl.noStore())
                .expectHeader().doesNotExist("Queue-Token")
                .expectBody()
                .jsonPath("$.error").isEqualTo("challenge_required")
                .jsonPath("$.challenge.algorithm").isEqualTo("SHA-256")
                .jsonPath("$.challenge.maxnumber").isEqualTo(2 * DIFFICULTY)
                .jsonPath("$.challenge.salt").value(salt -> assertThat((String) salt).contains("product=42"))
                .jsonPath("$.challenge.signature").isNotEmpty()
                .returnResult();
        assertThat(text(refused)).contains("Queue-Challenge");
        assertThat(fixture.redis().commands().exists("qg:{42}:settings")).isZero();
        fixture.backend().verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void aJsonClientThatSolvesTheChallengeJoinsAndTheShopNeverSeesTheSolution() {
        String solution = PowSolver.solveBody(challengeBody(fixture.gateway(0), "203.0.113.2"));

        // max-active 1 and nobody else: admitted at once, forwarded, with a token.
        String token = join(fixture.gateway(0), solution, "203.0.113.2").expectStatus().isOk()
                .expectHeader().exists("Queue-Token")
                .returnResult(String.class).getResponseHeaders().getFirst("Queue-Token");
        assertThat(token).isNotBlank();
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/api/products/42")));
        assertThat(fixture.backend().getAllServeEvents()).allSatisfy(event ->
                assertThat(event.getRequest().containsHeader("Queue-Challenge")).isFalse());

        // A second shopper who solves waits in line, with a place.
        String second = PowSolver.solveBody(challengeBody(fixture.gateway(1), "203.0.113.3"));
        join(fixture.gateway(1), second, "203.0.113.3").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.status").isEqualTo("WAITING").jsonPath("$.rank").isEqualTo(1);
    }

    @Test
    void aSolutionReplayedOnTheOtherInstanceIsRefusedAsUsed() {
        String solution = PowSolver.solveBody(challengeBody(fixture.gateway(0), "203.0.113.4"));
        join(fixture.gateway(0), solution, "203.0.113.4").expectStatus().isOk();

        // Another client (another address, no token) shows the same solution to the other instance.
        join(fixture.gateway(1), solution, "198.51.100.4").expectStatus().isEqualTo(HttpStatus.CONFLICT)
                .expectHeader().doesNotExist("Queue-Token")
                .expectBody()
                .jsonPath("$.error").isEqualTo("challenge_used")
                .jsonPath("$.challenge.signature").isNotEmpty();
        // And to the same one.
        join(fixture.gateway(0), solution, "198.51.100.5").expectStatus().isEqualTo(HttpStatus.CONFLICT);
        fixture.backend().verify(1, anyRequestedFor(anyUrl()));
        assertThat(fixture.redis().commands().zcard("qg:{42}:active")).isEqualTo(1);
    }

    @Test
    void oneSolutionSentTwentyTimesAtOnceToTwoInstancesBuysOneJoin() {
        String solution = PowSolver.solveBody(challengeBody(fixture.gateway(0), "203.0.113.5"));
        List<Integer> statuses = Flux.range(0, 20).parallel(20).runOn(Schedulers.boundedElastic())
                .map(i -> join(fixture.gateway(i % 2), solution, "198.51.100." + (10 + i))
                        .expectBody().returnResult().getStatus().value())
                .sequential().collectList().block(Duration.ofSeconds(60));

        assertThat(statuses).filteredOn(status -> status == 200).hasSize(1);
        assertThat(statuses).filteredOn(status -> status != 200).allMatch(status -> status == 409);
        assertThat(fixture.redis().commands().zcard("qg:{42}:active")).isEqualTo(1);
        assertThat(fixture.redis().commands().keys("qg:{42}:pow:*")).hasSize(1);
    }

    @Test
    void aSolutionForAnotherProductIsRefused() {
        String forSeven = PowSolver.solveBody(text(fixture.gateway(0).client().get().uri("/api/products/7")
                .header("X-Forwarded-For", "203.0.113.6").exchange().expectBody().returnResult()));

        join(fixture.gateway(1), forSeven, "203.0.113.6").expectStatus().isForbidden()
                .expectBody()
                .jsonPath("$.error").isEqualTo("challenge_invalid")
                .jsonPath("$.message").value(message -> assertThat((String) message)
                        .startsWith("the challenge was issued for another product"))
                .jsonPath("$.challenge.salt").value(salt -> assertThat((String) salt).contains("product=42"));
        assertThat(fixture.redis().commands().zcard("qg:{42}:active")).isZero();
    }

    @Test
    void anExpiredSolutionIsRefused() {
        // A genuine challenge of this gateway's key, handed out three minutes ago (the ttl is two).
        ProofOfWork threeMinutesAgo = new ProofOfWork(ProofOfWork.derivedKey(GatewayInstance.SECRET), List.of(),
                Duration.ofMinutes(2), Clock.fixed(Instant.now().minus(Duration.ofMinutes(3)), ZoneOffset.UTC));
        Challenge old = threeMinutesAgo.issue("42", DIFFICULTY);

        join(fixture.gateway(0), PowSolver.solve(json.valueToTree(old)), "203.0.113.7").expectStatus().isForbidden()
                .expectBody()
                .jsonPath("$.error").isEqualTo("challenge_invalid")
                .jsonPath("$.message").value(message -> assertThat((String) message).startsWith("the challenge has expired"));
    }

    @Test
    void aForgedChallengeIsRefused() {
        ProofOfWork forger = new ProofOfWork(ProofOfWork.derivedKey("a-forgers-guess-at-the-secret-0123456789abcdef"),
                List.of(), Duration.ofMinutes(2), Clock.systemUTC());
        String forged = PowSolver.solve(json.valueToTree(forger.issue("42", 1)));

        join(fixture.gateway(0), forged, "203.0.113.8").expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("challenge_invalid");
        // Nor is a genuine challenge with a number that does not solve it.
        String genuine = challengeBody(fixture.gateway(0), "203.0.113.8");
        long right = PowSolver.find(PowSolver.challengeOf(genuine).path("salt").asString(),
                PowSolver.challengeOf(genuine).path("challenge").asString(), 2 * DIFFICULTY);
        join(fixture.gateway(0), PowSolver.header(PowSolver.challengeOf(genuine), right + 1), "203.0.113.8")
                .expectStatus().isForbidden();
        join(fixture.gateway(0), "bm90IGEgc29sdXRpb24=", "203.0.113.8").expectStatus().isForbidden();
        assertThat(fixture.redis().commands().exists("qg:{42}:settings")).isZero();
    }

    @Test
    void aShopperWithATokenNeverPaysAgain() {
        join(fixture.gateway(0), PowSolver.solveBody(challengeBody(fixture.gateway(0), "203.0.113.9")), "203.0.113.9")
                .expectStatus().isOk();
        String solution = PowSolver.solveBody(challengeBody(fixture.gateway(0), "203.0.113.10"));
        String token = join(fixture.gateway(0), solution, "203.0.113.10").expectStatus()
                .isEqualTo(HttpStatus.TOO_MANY_REQUESTS).returnResult(String.class).getResponseHeaders()
                .getFirst("Queue-Token");

        // Polls on either instance, with the token and no solution: waiting answers, not challenges.
        for (int i = 0; i < 4; i++) {
            fixture.gateway(i % 2).client().get().uri("/api/products/42").header("Queue-Token", token)
                    .header("X-Forwarded-For", "203.0.113.10").exchange()
                    .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                    .expectBody().jsonPath("$.status").isEqualTo("WAITING");
        }
        fixture.gateway(1).client().get().uri("/queue/42/status").header("Queue-Token", token).exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("WAITING");
        // A solution sent along with a valid token is not even looked at: nothing is spent.
        fixture.gateway(1).client().get().uri("/api/products/42").header("Queue-Token", token)
                .header("Queue-Challenge", "garbage").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        assertThat(fixture.redis().commands().keys("qg:{42}:pow:*")).hasSize(2);
    }

    @Test
    void aBrowserIsGivenThePageThatSolvesItByItself() {
        fixture.client().get().uri("/api/products/42").header("Accept", "text/html")
                .header("X-Forwarded-For", "203.0.113.11").exchange()
                .expectStatus().isEqualTo(HttpStatus.PRECONDITION_REQUIRED)
                .expectHeader().contentTypeCompatibleWith("text/html")
                .expectHeader().value("Set-Cookie", cookie -> assertThat(cookie).startsWith("queue_wait=")
                        .containsIgnoringCase("HttpOnly"))
                .expectBody(String.class).value(html -> assertThat(html)
                        .contains("Checking your browser")
                        .contains("data-challenge=\"{&quot;algorithm&quot;:&quot;SHA-256&quot;")
                        .contains("new Worker(")
                        .contains("<noscript><meta http-equiv=\"refresh\" content=\"11\"></noscript>")
                        .contains("Without JavaScript you join the line after a short wait"));
    }

    private static String challengeBody(GatewayInstance gateway, String address) {
        return text(join(gateway, null, address).expectStatus().isEqualTo(HttpStatus.PRECONDITION_REQUIRED)
                .expectBody().returnResult());
    }

    private static WebTestClient.ResponseSpec join(GatewayInstance gateway, String solution, String address) {
        return gateway.client().get().uri("/api/products/42")
                .headers(headers -> {
                    headers.set("X-Forwarded-For", address);
                    if (solution != null) {
                        headers.set("Queue-Challenge", solution);
                    }
                })
                .exchange();
    }

    private static String text(EntityExchangeResult<byte[]> result) {
        return new String(result.getResponseBodyContent(), StandardCharsets.UTF_8);
    }
}
