package io.queuegate.web;

import java.net.InetSocketAddress;
import java.util.List;

import io.queuegate.config.CookieSecure;
import io.queuegate.identity.TrustedProxies;

import org.junit.jupiter.api.Test;
import org.springframework.http.server.reactive.SslInfo;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Whether the token cookie is {@code Secure}. With {@code server.forward-headers-strategy: none}
 * the request's own scheme behind a TLS-terminating proxy is {@code http}, so {@code auto} also
 * believes {@code X-Forwarded-Proto: https}, but only from a trusted proxy.
 */
class SecureCookiesTest {

    private static final TrustedProxies PROXIES = new TrustedProxies(List.of("10.0.0.0/8"));

    private final SecureCookies auto = new SecureCookies(CookieSecure.AUTO, PROXIES);

    @Test
    void autoIsSecureOverTlsToTheGatewayItself() {
        assertThat(auto.secure(request("203.0.113.9").sslInfo(mock(SslInfo.class)).build())).isTrue();
        assertThat(auto.secure(MockServerHttpRequest.get("https://shop.example.com/api/products/42")
                .remoteAddress(new InetSocketAddress("203.0.113.9", 40000)).build())).isTrue();
    }

    @Test
    void autoIsSecureWhenATrustedProxyTerminatedTls() {
        assertThat(auto.secure(request("10.0.0.2").header("X-Forwarded-Proto", "https").build())).isTrue();
        assertThat(auto.secure(request("10.0.0.2").header("X-Forwarded-Proto", "HTTPS").build())).isTrue();
    }

    @Test
    void autoTakesWhatTheTrustedPeerWroteLast() {
        // A client's own value with the proxy's appended: the proxy's (the last) counts.
        assertThat(auto.secure(request("10.0.0.2").header("X-Forwarded-Proto", "https, http").build())).isFalse();
        assertThat(auto.secure(request("10.0.0.2").header("X-Forwarded-Proto", "https")
                .header("X-Forwarded-Proto", "http").build())).isFalse();
        assertThat(auto.secure(request("10.0.0.2").header("X-Forwarded-Proto", "http, https").build())).isTrue();
    }

    @Test
    void autoIsNotSecureOverPlainHttpOrOnAnUntrustedPeersWord() {
        assertThat(auto.secure(request("10.0.0.2").build())).isFalse();
        assertThat(auto.secure(request("10.0.0.2").header("X-Forwarded-Proto", "http").build())).isFalse();
        assertThat(auto.secure(request("203.0.113.9").header("X-Forwarded-Proto", "https").build())).isFalse();
    }

    @Test
    void alwaysAndNeverAreWhatTheySay() {
        SecureCookies always = new SecureCookies(CookieSecure.ALWAYS, PROXIES);
        SecureCookies never = new SecureCookies(CookieSecure.NEVER, PROXIES);
        assertThat(always.secure(request("203.0.113.9").build())).isTrue();
        assertThat(never.secure(request("10.0.0.2").header("X-Forwarded-Proto", "https").build())).isFalse();
        assertThat(never.secure(request("203.0.113.9").sslInfo(mock(SslInfo.class)).build())).isFalse();
    }

    private static MockServerHttpRequest.BaseBuilder<?> request(String peer) {
        return MockServerHttpRequest.get("/api/products/42").remoteAddress(new InetSocketAddress(peer, 40000));
    }
}
