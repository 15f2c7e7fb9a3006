package io.queuegate.token;

import java.time.Duration;
import java.util.List;

import io.queuegate.identity.ClientAddresses;
import io.queuegate.support.Tokens;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code net} claim of a bound token: a keyed hash of the network (an IPv4 /24, an IPv6 /64),
 * the same for every address in it, different for every other network, unreadable without the
 * signing key, and still recognised after the key rotates.
 */
class NetworkClaimTest {

    private static final String SECRET = "test-secret-that-is-long-enough-for-hs256-0123456789";
    private static final String NEXT = "the-next-secret-that-is-long-enough-for-hs256-012345";

    private final WaitTokenCodec codec = Tokens.codec(SECRET);

    @Test
    void addressesOfOneNetworkShareTheClaimAndOthersDoNot() {
        assertThat(ClientAddresses.bindingNetwork("203.0.113.7")).isEqualTo("203.0.113.0/24");
        assertThat(ClientAddresses.bindingNetwork("203.0.113.250")).isEqualTo("203.0.113.0/24");
        assertThat(ClientAddresses.bindingNetwork("2001:db8:1:2::5")).isEqualTo(ClientAddresses.bindingNetwork(
                "2001:db8:1:2:aaaa:bbbb:cccc:dddd"));
        assertThat(ClientAddresses.bindingNetwork("::ffff:203.0.113.9")).isEqualTo("203.0.113.0/24");

        String home = codec.networkClaim("203.0.113.0/24");
        assertThat(home).matches("[A-Za-z0-9_-]{12}").isEqualTo(codec.networkClaim("203.0.113.0/24"));
        assertThat(codec.networkClaim("203.0.114.0/24")).isNotEqualTo(home);
        // Another secret, another claim: nobody without the key can map a claim back to its network.
        assertThat(Tokens.codec(NEXT).networkClaim("203.0.113.0/24")).isNotEqualTo(home);
    }

    @Test
    void aBoundTokenNamesItsNetworkAndKeepsItThroughARotation() {
        WaitToken token = codec.verify(codec.issue("42", "alice", false, null, null, codec.networkClaim("203.0.113.0/24")));
        assertThat(codec.boundTo(token, "203.0.113.0/24")).isTrue();
        assertThat(codec.boundTo(token, "198.51.100.0/24")).isFalse();

        WaitTokenCodec rotated = new WaitTokenCodec(new SigningKeys(NEXT, List.of(SECRET)), Duration.ofHours(2),
                java.time.Clock.systemUTC());
        assertThat(rotated.boundTo(rotated.verify(codec.issue("42", "alice", false, null, null,
                codec.networkClaim("203.0.113.0/24"))), "203.0.113.0/24")).isTrue();
    }

    @Test
    void anUnboundTokenIsBoundToNothing() {
        WaitToken token = codec.verify(codec.issue("42", "alice", false));
        assertThat(token.network()).isNull();
        assertThat(codec.boundTo(token, "203.0.113.0/24")).isFalse();
    }

    @Test
    void aClaimEditedIntoATokenBreaksItsSignature() {
        String bound = codec.issue("42", "alice", false, null, null, codec.networkClaim("203.0.113.0/24"));
        String edited = Tokens.tamperedClaim(bound, "net", codec.networkClaim("198.51.100.0/24"));
        assertThatThrownBy(() -> codec.verify(edited)).isInstanceOf(InvalidTokenException.class)
                .hasMessage("the token's signature does not match");
    }
}
