package io.queuegate.identity;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClientAddressesTest {

    private final ClientAddresses behindProxies = new ClientAddresses(new TrustedProxies(List.of("10.0.0.0/8", "2001:db8::/32")));

    @Test
    void aDirectClientIsItsPeerWhateverItClaims() {
        assertThat(behindProxies.of(request("203.0.113.5", "1.1.1.1"))).isEqualTo("203.0.113.5");
    }

    @Test
    void behindTrustedProxiesTheRightmostUntrustedHopIsTheClient() {
        assertThat(behindProxies.of(request("10.0.0.2", "6.6.6.6, 198.51.100.7, 10.1.2.3"))).isEqualTo("198.51.100.7");
        assertThat(behindProxies.of(request("2001:db8::1", "198.51.100.8"))).isEqualTo("198.51.100.8");
    }

    @Test
    void onlyTrustedHopsMeansTheFirstOne() {
        assertThat(behindProxies.of(request("10.0.0.2", "10.0.0.9, 10.0.0.8"))).isEqualTo("10.0.0.9");
        assertThat(behindProxies.of(request("10.0.0.2", null))).isEqualTo("10.0.0.2");
    }

    @ParameterizedTest(name = "{0} is the client {1}")
    @CsvSource(delimiter = '|', value = {
            "198.51.100.7:5678     | 198.51.100.7",
            "[2001:db9::1]:443     | 2001:db9:0:0:0:0:0:1",
            "[2001:db9::1]         | 2001:db9:0:0:0:0:0:1",
            "2001:db9::1           | 2001:db9:0:0:0:0:0:1",
            "::ffff:198.51.100.7   | 198.51.100.7" })
    void aHopWrittenWithAPortOrBracketsIsItsAddressWrittenAsAPeersIs(String hop, String client) {
        assertThat(behindProxies.of(request("10.0.0.2", hop + ", 10.1.2.3"))).isEqualTo(client);
    }

    @ParameterizedTest(name = "the trusted hop {0}")
    @ValueSource(strings = { "10.1.2.3:8080", "[2001:db8::5]:443", "[2001:db8::5]" })
    void aTrustedProxyIsRecognisedWithAPortOrBrackets(String trustedHop) {
        assertThat(behindProxies.of(request("10.0.0.2", "198.51.100.7, " + trustedHop))).isEqualTo("198.51.100.7");
    }

    /**
     * A hop that is no address cannot be the client: an attacker behind a proxy that passes it
     * on would get a fresh per-address limit for every string. The walk stops there, and the
     * last address it believed (a trusted proxy, or the peer) stays the client.
     */
    @ParameterizedTest(name = "the hop {0}")
    @ValueSource(strings = { "cafe", "unknown", "1234", "0x7f.0.0.1", "010.0.0.1", "1.2.3", "1.2.3.4.5",
            "256.1.1.1", "1.2.3.4:", "1.2.3.4:99999", "fe80::1%eth0", "[2001:db9::1", "2001:db9::1]:443",
            "::ffff:999.1.1.1", "1:2:3:4:5:6:7:8:9", "1::2::3" })
    void aHopThatIsNoLiteralAddressLeavesThePreviousHopTheClient(String garbage) {
        assertThat(behindProxies.of(request("10.0.0.2", "6.6.6.6, " + garbage))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.of(request("10.0.0.2", "6.6.6.6, " + garbage + ", 10.1.2.3"))).isEqualTo("10.1.2.3");
    }

    @Test
    void refusesTrustedProxiesThatAreNotAddresses() {
        assertThatThrownBy(() -> new TrustedProxies(List.of("proxy.example.com")))
                .hasMessageContaining("not an IP address or CIDR block");
        assertThatThrownBy(() -> new TrustedProxies(List.of("10.0.0.0/33"))).hasMessageContaining("bad prefix");
    }

    private static MockServerHttpRequest request(String peer, String forwardedFor) {
        MockServerHttpRequest.BaseBuilder<?> builder = MockServerHttpRequest.get("/api/products/42")
                .remoteAddress(new InetSocketAddress(peer, 40000));
        if (forwardedFor != null) {
            builder.header("X-Forwarded-For", forwardedFor);
        }
        return builder.build();
    }

    @Test
    void limitsCountAnIpv4AddressAsItselfAndAnIpv6AddressByItsSlash64() {
        assertThat(ClientAddresses.network("203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(ClientAddresses.network("2001:db8:1:2:aaaa::1"))
                .isEqualTo(ClientAddresses.network("2001:db8:1:2:ffff:ffff:ffff:ffff"))
                .isEqualTo("2001:db8:1:2::/64");
        assertThat(ClientAddresses.network("2001:db8:1:3::1")).isNotEqualTo(ClientAddresses.network("2001:db8:1:2::1"));
        assertThat(ClientAddresses.network("unknown")).isEqualTo("unknown");
    }
}
