package io.queuegate.admission;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import io.queuegate.token.SigningKeys;
import io.queuegate.token.WaitTokenCodec;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpCookie;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which token a request presents: the header over every cookie, and of several cookies the one
 * that verifies, for the product asked about if one does (the whole attack, a cookie planted
 * beside the real one, runs through a gateway in {@code TokenCookieTest}).
 */
class PresentedTokenTest {

    private static final String SECRET = "a-test-secret-that-is-long-enough-for-hs256-0123456789";

    private final WaitTokenCodec tokens = new WaitTokenCodec(new SigningKeys(SECRET, List.of()), Duration.ofHours(2),
            Clock.systemUTC());
    private final CallerResolver callers = new CallerResolver(tokens);

    @Test
    void theHeaderWinsOverEveryCookie() {
        PresentedToken presented = PresentedToken.of(MockServerHttpRequest.get("/").header("Queue-Token", "h")
                .cookie(new HttpCookie("queue_token", "a"), new HttpCookie("queue_token", "b")).build());

        assertThat(presented).isEqualTo(new PresentedToken("h", false, false));
    }

    @Test
    void oneCookieIsTheTokenAndEmptyOnesAreNone() {
        assertThat(PresentedToken.of(cookies("", "a"))).isEqualTo(new PresentedToken("a", true, false));
        assertThat(PresentedToken.of(cookies(""))).isNull();
        assertThat(PresentedToken.of(MockServerHttpRequest.get("/").build())).isNull();
    }

    @Test
    void ofSeveralCookiesTheOneThatVerifiesIsChosenInEitherOrder() {
        String real = tokens.issue("42", "alice", false);

        assertThat(callers.chosen("42", PresentedToken.of(cookies("garbage", real))).value()).isEqualTo(real);
        assertThat(callers.chosen("42", PresentedToken.of(cookies(real, "garbage"))).value()).isEqualTo(real);
        assertThat(callers.chosen("42", PresentedToken.of(cookies("garbage", real)))).returns(false,
                PresentedToken::severalCookies);
    }

    @Test
    void thisProductsCookieWinsOverAnotherProductsAndOfTwoTheLast() {
        String mine = tokens.issue("42", "alice", false);
        String other = tokens.issue("7", "mallory", false);
        String older = tokens.issue("42", "mallory", false);

        assertThat(callers.chosen("42", PresentedToken.of(cookies(other, mine))).value()).isEqualTo(mine);
        assertThat(callers.chosen("42", PresentedToken.of(cookies(mine, other))).value()).isEqualTo(mine);
        assertThat(callers.chosen("42", PresentedToken.of(cookies(older, mine))).value())
                .as("the gateway's own cookie, path /, comes last").isEqualTo(mine);
        assertThat(callers.chosen("9", PresentedToken.of(cookies("garbage", other))).value())
                .as("another product's, when none is this one's").isEqualTo(other);
    }

    @Test
    void whenNoneVerifiesTheFirstIsRefusedAsOneBadCookieIs() {
        String expired = new WaitTokenCodec(new SigningKeys(SECRET, List.of()), Duration.ofHours(2),
                Clock.fixed(Instant.now().minus(Duration.ofHours(3)), ZoneOffset.UTC)).issue("42", "alice", false);

        PresentedToken chosen = callers.chosen("42", PresentedToken.of(cookies("garbage", expired)));

        assertThat(chosen).isEqualTo(new PresentedToken("garbage", true, false));
    }

    private static MockServerHttpRequest cookies(String... values) {
        MockServerHttpRequest.BaseBuilder<?> request = MockServerHttpRequest.get("/api/products/42");
        for (String value : values) {
            request.cookie(new HttpCookie("queue_token", value));
        }
        return request.build();
    }
}
