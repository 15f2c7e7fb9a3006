package io.queuegate.web;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The spellings of the identity header a backend would read as it, looked up by name (the
 * gateway-level attack runs in {@code ForwardedRequestTest}): every mix of {@code -} and
 * {@code _}, in any case, on a route without a queue, whether the header's name has few
 * separators (asked for one by one) or many (every name of the request read).
 */
class ForwardedRequestHeadersTest {

    @Test
    void spellsTheNameWithEveryOtherMixOfSeparators() {
        assertThat(ForwardedRequestHeaders.otherSeparators("X-User-Id"))
                .containsExactlyInAnyOrder("X_User-Id", "X-User_Id", "X_User_Id");
        assertThat(ForwardedRequestHeaders.otherSeparators("X_Shopper")).containsExactly("X-Shopper");
        assertThat(ForwardedRequestHeaders.otherSeparators("Shopper")).isEmpty();
        assertThat(ForwardedRequestHeaders.otherSeparators("X-A-B-C-D")).hasSize(15);
        assertThat(ForwardedRequestHeaders.otherSeparators("X-A-B-C-D-E")).as("too many to ask for").isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = { "X-User-Id", "X-A-B-C-D-User" })
    void dropsEveryOtherSpellingInAnyCaseAndKeepsTheShopsOwnHeaders(String identityHeader) {
        ForwardedRequestHeaders filter = new ForwardedRequestHeaders(identityHeader, exchange -> true);
        String underscores = identityHeader.replace('-', '_');
        String mixed = identityHeader.replaceFirst("-", "_").toUpperCase(java.util.Locale.ROOT);
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/plain")
                .header(identityHeader, "alice")
                .header(underscores.toLowerCase(java.util.Locale.ROOT), "admin")
                .header(mixed, "root")
                .header("X-Shop", "kept"));

        HttpHeaders forwarded = filter.filter(exchange.getRequest().getHeaders(), exchange);

        assertThat(forwarded.get(identityHeader)).as("a trusted proxy's header goes on").isEqualTo(List.of("alice"));
        assertThat(forwarded.containsHeader(underscores)).isFalse();
        assertThat(forwarded.containsHeader(mixed)).isFalse();
        assertThat(forwarded.get("X-Shop")).isEqualTo(List.of("kept"));
    }

    @Test
    void changesNothingWhenNoOtherSpellingCame() {
        ForwardedRequestHeaders filter = new ForwardedRequestHeaders("X-User-Id", exchange -> true);
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/plain")
                .header("x-user-id", "alice").header("X-User-Ids", "not the same header").header("X-Shop", "kept"));
        HttpHeaders received = exchange.getRequest().getHeaders();

        assertThat(filter.filter(received, exchange)).isSameAs(received);
    }
}
