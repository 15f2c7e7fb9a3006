package io.queuegate.web;

import java.util.List;
import java.util.Map;

import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The running gateway marks the token cookie {@code Secure} when the trusted proxy in front of
 * it (the tests' loopback) says the shopper came over TLS, and only then: the gateway itself
 * speaks plain HTTP here, as it does behind a TLS-terminating ingress.
 */
class TokenCookieTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1"));

    @Test
    void theCookieIsSecureWhenTheTrustedProxyTerminatedTls() {
        assertThat(tokenCookie("alice", "https")).contains("queue_token=").contains("; Secure");
        // Waiting answers set the cookie too.
        assertThat(tokenCookie("bob", "https")).contains("queue_token=").contains("; Secure");
    }

    @Test
    void theCookieIsNotSecureOverPlainHttp() {
        assertThat(tokenCookie("alice", null)).contains("queue_token=").doesNotContain("; Secure");
        assertThat(tokenCookie("bob", "http")).contains("queue_token=").doesNotContain("; Secure");
    }

    private static String tokenCookie(String user, String forwardedProto) {
        List<String> cookies = fixture.client().get().uri("/api/products/42")
                .headers(headers -> {
                    headers.set("X-User-Id", user);
                    if (forwardedProto != null) {
                        headers.set("X-Forwarded-Proto", forwardedProto);
                    }
                })
                .exchange()
                .returnResult(String.class)
                .getResponseHeaders()
                .getOrEmpty(HttpHeaders.SET_COOKIE);
        assertThat(cookies).as("Set-Cookie for %s", user).hasSize(1);
        return cookies.get(0);
    }
}
