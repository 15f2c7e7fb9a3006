package io.queuegate.token;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;

import javax.crypto.SecretKey;

import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.Keys;
import io.queuegate.support.Tokens;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WaitTokenCodecTest {

    private static final String SECRET = "unit-test-secret-that-is-long-enough-0123456789";
    private static final String OLD_SECRET = "the-previous-secret-still-valid-during-rotation";
    private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private final WaitTokenCodec codec = new WaitTokenCodec(new SigningKeys(SECRET, List.of()), Duration.ofHours(2), CLOCK);

    @Test
    void aTokenCarriesProductUserAndLifetime() {
        WaitToken token = codec.verify(codec.issue("42", "alice", false));
        assertThat(token).isEqualTo(new WaitToken("42", "alice", false, NOW, NOW.plus(Duration.ofHours(2))));
    }

    /**
     * Verified tokens are remembered so a poll costs no HMAC; a flood of new tokens (a client per
     * request, each with a token of its own) must not make the gateway forget the tokens of the
     * shoppers still polling, as a memory that started afresh when full did for everyone at once.
     */
    @Test
    void aFloodOfNewTokensDoesNotForgetTheTokensInUse() {
        String alices = codec.issue("42", "alice", false);
        int flooders = 0;
        for (int second = 1; second <= 10; second++) {
            codec.verify(alices);
            for (int i = 0; i < 10_001; i++) {
                codec.verify(codec.issue("42", "flood-" + flooders++, true));
            }
        }
        assertThat(flooders).isGreaterThan(WaitTokenCodec.MAX_VERIFIED);
        assertThat(codec.remembers(alices)).as("alice's token, checked once a second").isTrue();
        assertThat(codec.remembered()).isLessThanOrEqualTo(WaitTokenCodec.MAX_VERIFIED);
    }

    @Test
    void tokensOfAPreviousSecretStayValidDuringRotation() {
        WaitTokenCodec old = new WaitTokenCodec(new SigningKeys(OLD_SECRET, List.of()), Duration.ofHours(2), CLOCK);
        WaitTokenCodec rotated = new WaitTokenCodec(new SigningKeys(SECRET, List.of(OLD_SECRET)), Duration.ofHours(2),
                CLOCK);
        assertThat(rotated.verify(old.issue("42", "alice", true)).userId()).isEqualTo("alice");
        assertThatThrownBy(() -> codec.verify(old.issue("42", "alice", true)))
                .hasMessage("the token's key id is unknown");
    }

    @Test
    void refusesExpiredTokens() {
        String token = codec.issue("42", "alice", false);
        WaitTokenCodec later = new WaitTokenCodec(new SigningKeys(SECRET, List.of()), Duration.ofHours(2),
                Clock.fixed(NOW.plus(Duration.ofHours(3)), ZoneOffset.UTC));
        assertThatThrownBy(() -> later.verify(token)).isInstanceOf(InvalidTokenException.class)
                .hasMessage("the token has expired");
    }

    @Test
    void aTokenVerifiedBeforeStillExpiresOnTime() {
        java.util.concurrent.atomic.AtomicReference<Instant> now = new java.util.concurrent.atomic.AtomicReference<>(NOW);
        Clock moving = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        WaitTokenCodec remembering = new WaitTokenCodec(new SigningKeys(SECRET, List.of()), Duration.ofHours(2), moving);
        String token = remembering.issue("42", "alice", false);
        assertThat(remembering.verify(token).userId()).isEqualTo("alice");
        assertThat(remembering.verify(token).userId()).isEqualTo("alice");
        now.set(NOW.plus(Duration.ofHours(3)));
        assertThatThrownBy(() -> remembering.verify(token)).hasMessage("the token has expired");
        assertThatThrownBy(() -> remembering.verify(token + "x")).isInstanceOf(InvalidTokenException.class);
    }

    @Test
    void refusesTokensIssuedInTheFuture() {
        WaitTokenCodec ahead = new WaitTokenCodec(new SigningKeys(SECRET, List.of()), Duration.ofHours(2),
                Clock.fixed(NOW.plus(Duration.ofMinutes(5)), ZoneOffset.UTC));
        assertThatThrownBy(() -> codec.verify(ahead.issue("42", "alice", false)))
                .hasMessage("the token was issued in the future");
    }

    @Test
    void refusesUnsignedTokens() {
        assertThatThrownBy(() -> codec.verify(Tokens.unsigned("42", "alice")))
                .isInstanceOf(InvalidTokenException.class);
    }

    @Test
    void refusesOtherAlgorithmsEvenWithTheRightKey() {
        SecretKey strong = Keys.hmacShaKeyFor((SECRET + SECRET).getBytes());
        String hs512 = Jwts.builder().header().keyId(SigningKeys.keyId(SECRET)).and()
                .claim("typ", "wait").claim("pid", "42").claim("uid", "alice").claim("anon", false)
                .issuedAt(Date.from(NOW)).expiration(Date.from(NOW.plusSeconds(60)))
                .signWith(strong, Jwts.SIG.HS512).compact();
        assertThatThrownBy(() -> codec.verify(hs512)).hasMessage("the token must be signed with HS256");
    }

    @Test
    void refusesTokensOfAnotherTypeOrWithoutClaims() {
        SecretKey key = Keys.hmacShaKeyFor(SECRET.getBytes());
        String wrongType = Jwts.builder().header().keyId(SigningKeys.keyId(SECRET)).and()
                .claim("typ", "admin").claim("pid", "42").claim("uid", "alice").claim("anon", false)
                .issuedAt(Date.from(NOW)).expiration(Date.from(NOW.plusSeconds(60)))
                .signWith(key, Jwts.SIG.HS256).compact();
        String noUser = Jwts.builder().header().keyId(SigningKeys.keyId(SECRET)).and()
                .claim("typ", "wait").claim("pid", "42").claim("anon", false)
                .issuedAt(Date.from(NOW)).expiration(Date.from(NOW.plusSeconds(60)))
                .signWith(key, Jwts.SIG.HS256).compact();
        assertThatThrownBy(() -> codec.verify(wrongType)).hasMessage("the token is not a wait token");
        assertThatThrownBy(() -> codec.verify(noUser)).hasMessage("the token lacks a required claim");
    }

    @Test
    void refusesOversizedTokensBeforeParsing() {
        assertThatThrownBy(() -> codec.verify("a".repeat(WaitTokenCodec.MAX_TOKEN_LENGTH + 1)))
                .hasMessageContaining("longer than");
    }

    @Test
    void theKeyIdRevealsNothingOfTheSecret() {
        String keyId = SigningKeys.keyId(SECRET);
        assertThat(keyId).hasSize(10).doesNotContain(SECRET.substring(0, 5));
        assertThat(SigningKeys.keyId(OLD_SECRET)).isNotEqualTo(keyId);
    }
}
