package io.queuegate.web;

import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.util.LinkedMultiValueMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The spellings of the identity header a backend would read as it, looked up by name (the
 * gateway-level attack runs in {@code ForwardedRequestTest}): every mix of {@code -} and
 * {@code _}, in any case, on a route without a queue, whether the header's name has few
 * separators (asked for one by one) or many (every name of the request read).
 */
class ForwardedRequestHeadersTest {

    @Test
    void spellsTheNameWithEveryOtherMixOfSeparatorsInLowerCase() {
        assertThat(ForwardedRequestHeaders.separatorMixes("X-User-Id"))
                .containsExactlyInAnyOrder("x_user-id", "x-user_id", "x_user_id");
        assertThat(ForwardedRequestHeaders.separatorMixes("X_Shopper")).containsExactly("x-shopper");
        assertThat(ForwardedRequestHeaders.separatorMixes("Shopper")).isEmpty();
        List<String> four = ForwardedRequestHeaders.separatorMixes("X-A_B-C-D");
        assertThat(four).hasSize(15).doesNotHaveDuplicates().doesNotContain("x-a_b-c-d")
                .allMatch(mix -> mix.replace('_', '-').equals("x-a-b-c-d"));
        assertThat(ForwardedRequestHeaders.separatorMixes("X-A-B-C-D-E")).as("too many to ask for").isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = { "X-User-Id", "X_User_Id", "X-A-B-C-D-User" })
    void dropsEveryOtherSpellingInAnyCaseAndKeepsTheShopsOwnHeaders(String identityHeader) {
        ForwardedRequestHeaders filter = new ForwardedRequestHeaders(identityHeader, exchange -> true);
        String underscores = identityHeader.indexOf('-') >= 0 ? identityHeader.replace('-', '_')
                : identityHeader.replace('_', '-');
        String mixed = identityHeader.indexOf('-') >= 0 ? identityHeader.replaceFirst("-", "_").toUpperCase(Locale.ROOT)
                : identityHeader.replaceFirst("_", "-").toUpperCase(Locale.ROOT);
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/plain")
                .header(identityHeader, "alice")
                .header(underscores.toLowerCase(Locale.ROOT), "admin")
                .header(mixed, "root")
                .header("X-Shop", "kept"));

        HttpHeaders forwarded = filter.filter(exchange.getRequest().getHeaders(), exchange);

        assertThat(forwarded.get(identityHeader)).as("a trusted proxy's header goes on").isEqualTo(List.of("alice"));
        assertThat(forwarded.containsHeader(underscores)).isFalse();
        assertThat(forwarded.containsHeader(mixed)).isFalse();
        assertThat(forwarded.get("X-Shop")).isEqualTo(List.of("kept"));
    }

    /**
     * A shop's own header filter that runs earlier may hand on a map whose names depend on case:
     * what the client sent is still found (the request's own headers are asked too) and taken away
     * as that map spells it.
     */
    @Test
    void dropsTheOtherSpellingsFromAnEarlierFiltersCaseSensitiveCopy() {
        ForwardedRequestHeaders filter = new ForwardedRequestHeaders("X-User-Id", exchange -> true);
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/plain")
                .header("X-User-Id", "alice").header("x_uSeR-iD", "admin").header("X-USER_ID", "root")
                .header("X-Shop", "kept"));
        HttpHeaders caseSensitive = new HttpHeaders(new LinkedMultiValueMap<>());
        exchange.getRequest().getHeaders().forEach(caseSensitive::addAll);

        HttpHeaders forwarded = filter.filter(caseSensitive, exchange);

        assertThat(forwarded.headerNames()).containsExactlyInAnyOrder("X-User-Id", "X-Shop");
        assertThat(forwarded.get("X-User-Id")).isEqualTo(List.of("alice"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "X-User-Id", "X-A-B-C-D-User" })
    void changesNothingWhenNoOtherSpellingCame(String identityHeader) {
        ForwardedRequestHeaders filter = new ForwardedRequestHeaders(identityHeader, exchange -> true);
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/plain")
                .header(identityHeader.toLowerCase(Locale.ROOT), "alice").header(identityHeader + "s", "not the same header")
                .header("X-Shop", "kept"));
        HttpHeaders received = exchange.getRequest().getHeaders();

        assertThat(filter.filter(received, exchange)).isSameAs(received);
    }
}
