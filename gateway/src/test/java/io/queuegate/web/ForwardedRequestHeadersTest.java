package io.queuegate.web;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.util.LinkedMultiValueMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The spellings of the identity header a backend would read as it, looked up by name (the
 * gateway-level attack runs in {@code ForwardedRequestTest}): every mix of {@code -} and
 * {@code _}, in any case, on a route without a queue, whether the header's name has few
 * separators (asked for one by one) or many (every name of the request read); and on a protected
 * route every spelling of the method override headers.
 */
class ForwardedRequestHeadersTest {

    @Test
    void spellsTheNameWithEveryOtherMixOfSeparatorsInLowerCase() {
        assertThat(HeaderSpellings.separatorMixes("X-User-Id"))
                .containsExactlyInAnyOrder("x_user-id", "x-user_id", "x_user_id");
        assertThat(HeaderSpellings.separatorMixes("X_Shopper")).containsExactly("x-shopper");
        assertThat(HeaderSpellings.separatorMixes("Shopper")).isEmpty();
        List<String> four = HeaderSpellings.separatorMixes("X-A_B-C-D");
        assertThat(four).hasSize(15).doesNotHaveDuplicates().doesNotContain("x-a_b-c-d")
                .allMatch(mix -> mix.replace('_', '-').equals("x-a-b-c-d"));
        assertThat(HeaderSpellings.separatorMixes("X-A-B-C-D-E")).as("too many to ask for").isNull();
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

    @Test
    void dropsEveryMethodOverrideSpellingOnAProtectedRouteEvenFromACaseSensitiveCopy() {
        ForwardedRequestHeaders filter = new ForwardedRequestHeaders("X-User-Id", exchange -> true);
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/api/products/42")
                .header("x-http-method-override", "GET").header("X_HTTP_Method_Override", "PUT")
                .header("X-HTTP_METHOD", "DELETE").header("x_method-override", "PATCH")
                .header("X-Method-Overrides", "not the same header").header("X-Shop", "kept"));
        exchange.getAttributes().put(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR, protectedRoute());
        HttpHeaders caseSensitive = new HttpHeaders(new LinkedMultiValueMap<>());
        exchange.getRequest().getHeaders().forEach(caseSensitive::addAll);

        HttpHeaders forwarded = filter.filter(caseSensitive, exchange);

        assertThat(forwarded.headerNames()).containsExactlyInAnyOrder("X-Method-Overrides", "X-Shop");
    }

    @Test
    void changesNothingOnAProtectedRouteWhenNoMethodOverrideCame() {
        ForwardedRequestHeaders filter = new ForwardedRequestHeaders("X-User-Id", exchange -> true);
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/api/products/42")
                .header("X-HTTP-Method-Overrides", "not the same header").header("X-Shop", "kept"));
        exchange.getAttributes().put(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR, protectedRoute());
        HttpHeaders received = exchange.getRequest().getHeaders();

        assertThat(filter.filter(received, exchange)).isSameAs(received);
    }

    private static Route protectedRoute() {
        return Route.async().id("products").uri("http://shop.internal").predicate(exchange -> true)
                .metadata(Map.of("queue", Map.of("max-active", 1))).build();
    }
}
