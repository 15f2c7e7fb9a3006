package io.queuegate.token;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;

import io.jsonwebtoken.Jwts;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code jat} claim: when a waiting holder joined, so their wait can be timed on admission. */
class WaitTokenJoinTimeTest {

    private static final String SECRET = "unit-test-secret-that-is-long-enough-0123456789";
    private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");

    private final SigningKeys keys = new SigningKeys(SECRET, List.of());
    private final WaitTokenCodec codec = new WaitTokenCodec(keys, Duration.ofHours(2), Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aWaitingTokenCarriesItsJoinTimeInWholeSeconds() {
        Instant joined = NOW.minusMillis(90_500);

        assertThat(codec.verify(codec.issue("42", "alice", false, joined)).joinedAt())
                .isEqualTo(Instant.ofEpochSecond(joined.getEpochSecond()));
    }

    @Test
    void aTokenOfSomeoneNotWaitingHasNoJoinTime() {
        assertThat(codec.verify(codec.issue("42", "alice", false)).joinedAt()).isNull();
        assertThat(codec.verify(codec.issue("42", "alice", false, null)).joinedAt()).isNull();
    }

    @Test
    void aJoinTimeThatIsNoNumberMakesTheTokenInvalid() {
        String odd = Jwts.builder().header().keyId(keys.currentId()).and()
                .claim("typ", "wait").claim("pid", "42").claim("uid", "alice").claim("anon", false)
                .claim("jat", "yesterday")
                .issuedAt(Date.from(NOW)).expiration(Date.from(NOW.plusSeconds(60)))
                .signWith(keys.current(), Jwts.SIG.HS256).compact();

        assertThatThrownBy(() -> codec.verify(odd)).isInstanceOf(InvalidTokenException.class);
    }
}
