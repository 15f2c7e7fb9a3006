package io.queuegate.token;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.function.UnaryOperator;

import io.jsonwebtoken.JwtBuilder;
import io.jsonwebtoken.Jwts;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The claims of a waiting holder's token: {@code jat}, when they joined (their wait is timed on
 * admission), and {@code tkt}, their ticket (a gateway answers their polls from its own view of
 * the line with it); and when such a token is due to be signed again.
 */
class WaitingTokenClaimsTest {

    private static final String SECRET = "unit-test-secret-that-is-long-enough-0123456789";
    private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");

    private final SigningKeys keys = new SigningKeys(SECRET, List.of());
    private final WaitTokenCodec codec = new WaitTokenCodec(keys, Duration.ofHours(2), Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aWaitingTokenCarriesItsJoinTimeInWholeSecondsAndItsTicket() {
        Instant joined = NOW.minusMillis(90_500);

        WaitToken token = codec.verify(codec.issue("42", "alice", false, joined, 1234L));

        assertThat(token.joinedAt()).isEqualTo(Instant.ofEpochSecond(joined.getEpochSecond()));
        assertThat(token.ticket()).isEqualTo(1234L);
    }

    @Test
    void aTokenOfSomeoneNotWaitingHasNeitherJoinTimeNorTicket() {
        WaitToken token = codec.verify(codec.issue("42", "alice", false));

        assertThat(token.joinedAt()).isNull();
        assertThat(token.ticket()).isNull();
        assertThat(codec.verify(codec.issue("42", "alice", false, null, null)).joinedAt()).isNull();
    }

    @Test
    void aTokenOfThePreviousReleaseWaitsWithoutATicket() {
        String previous = signed(claims -> claims.claim("jat", NOW.getEpochSecond()));

        WaitToken token = codec.verify(previous);

        assertThat(token.joinedAt()).isNotNull();
        assertThat(token.ticket()).as("answered from Redis, and re-signed with a ticket").isNull();
    }

    @Test
    void aJoinTimeThatIsNoNumberMakesTheTokenInvalid() {
        String odd = signed(claims -> claims.claim("jat", "yesterday"));

        assertThatThrownBy(() -> codec.verify(odd)).isInstanceOf(InvalidTokenException.class);
    }

    @Test
    void aTicketThatIsNoWholeNonZeroNumberOrWithoutAJoinTimeMakesTheTokenInvalid() {
        long joined = NOW.getEpochSecond();
        for (String odd : List.of(signed(c -> c.claim("jat", joined).claim("tkt", "7")),
                signed(c -> c.claim("jat", joined).claim("tkt", 7.5)),
                signed(c -> c.claim("jat", joined).claim("tkt", 0)),
                signed(c -> c.claim("tkt", 7)))) {
            assertThatThrownBy(() -> codec.verify(odd)).as(odd).isInstanceOf(InvalidTokenException.class);
        }
    }

    @Test
    void aNegativeTicketIsOneOfTheInvitedLine() {
        WaitToken invited = codec.verify(codec.issue("42", "alice", false, NOW, -3L));
        assertThat(invited.ticket()).isEqualTo(-3L);
    }

    @Test
    void aWaitingTokenIsDueToBeSignedAgainAfterHalfItsLifetime() {
        WaitToken fresh = codec.verify(codec.issue("42", "alice", false, NOW, 1L));
        assertThat(codec.dueForRenewal(fresh)).isFalse();

        WaitTokenCodec later = new WaitTokenCodec(keys, Duration.ofHours(2),
                Clock.fixed(NOW.plus(Duration.ofMinutes(59)), ZoneOffset.UTC));
        assertThat(later.dueForRenewal(fresh)).as("a 2 h token: not before an hour").isFalse();
        WaitTokenCodec hourLater = new WaitTokenCodec(keys, Duration.ofHours(2),
                Clock.fixed(NOW.plus(Duration.ofHours(1)), ZoneOffset.UTC));
        assertThat(hourLater.dueForRenewal(fresh)).as("a 2 h token: after an hour").isTrue();

        WaitTokenCodec shortLived = new WaitTokenCodec(keys, Duration.ofMinutes(10),
                Clock.fixed(NOW.plus(Duration.ofMinutes(5)), ZoneOffset.UTC));
        assertThat(shortLived.dueForRenewal(fresh)).as("a 10 min token: after 5 min").isTrue();
        WaitTokenCodec shortLivedEarlier = new WaitTokenCodec(keys, Duration.ofMinutes(10),
                Clock.fixed(NOW.plus(Duration.ofMinutes(4)), ZoneOffset.UTC));
        assertThat(shortLivedEarlier.dueForRenewal(fresh)).isFalse();
    }

    private String signed(UnaryOperator<JwtBuilder> claims) {
        var builder = Jwts.builder().header().keyId(keys.currentId()).and()
                .claim("typ", "wait").claim("pid", "42").claim("uid", "alice").claim("anon", false);
        return claims.apply(builder)
                .issuedAt(Date.from(NOW)).expiration(Date.from(NOW.plusSeconds(60)))
                .signWith(keys.current(), Jwts.SIG.HS256).compact();
    }
}
