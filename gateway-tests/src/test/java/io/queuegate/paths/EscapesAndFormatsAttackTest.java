package io.queuegate.paths;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.jayway.jsonpath.JsonPath;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.LooseShop;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.util.UriUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attacks on the loose reading through escapes and formats, each of which once got through (the
 * comment above each says how): the quick check read the path before its escapes were decoded, and
 * {@code complete-on} knew only a letters-only format. Beside {@link LooseReadingAttackTest}, which
 * holds the other spellings.
 *
 * <p>The route set is docs/deployment.md's (the protected product route, then a catch-all
 * {@code Path=/**}), the shop is {@link LooseShop}, and where a framework reads a spelling more
 * loosely than LooseShop models, the test says which framework and teaches the WireMock shop that
 * one reading, or reads the URL the shop received as that framework would.
 */
class EscapesAndFormatsAttackTest {

    private static final String PRODUCT = "/api/products/10";
    private static final String ORDERS = "/api/products/10/orders";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m",
                    "complete-on", "POST /api/products/{productId}/orders", "product-id-pattern", "[1-9][0-9]*"))
            // The product route's predicate exactly as docs/deployment.md writes it.
            .with("spring.cloud.gateway.server.webflux.routes[0].predicates[0]", "Path=/api/products/{productId}/**")
            .withOpenRoute("everything-else", "/**");

    /**
     * How ASP.NET Core reads a path: Kestrel percent-decodes it (all but {@code %2F}) before routing,
     * and routing ignores letter case. Java shops whose router ignores case with
     * {@code String.equalsIgnoreCase} (Spring's case-insensitive {@code PathPatternParser}, the very
     * parser QueueGate's own loose reading uses) also fold {@code İ}, {@code ı}, {@code ſ} and the
     * Kelvin sign to ASCII letters.
     */
    private static final PathPatternParser JAVA_ANY_CASE = anyCase();
    private static final PathPattern PRODUCT_PAGE = JAVA_ANY_CASE.parse("/api/products/{id}/**");

    @BeforeEach
    void shopReadsPathsLoosely() {
        LooseShop.readsPathsLoosely(fixture.backend());
        // Rails routes `orders(.:format)` with the format segment's default requirement [^/.?]+, so
        // `orders.1`, `orders.x-json` and `orders.js%6Fn` (format "json" once Rails unescapes it) all
        // reach orders#create: the action runs (the order is saved) before any respond_to looks at
        // the format.
        fixture.backend().stubFor(post(urlPathMatching("/api/products/[^/.?]+/orders\\.[^/.?]+")).atPriority(3)
                .willReturn(aResponse().withStatus(201).withBody("{\"order\":\"placed (rails format)\"}")));
        // Spring MVC up to 5.2 matched every @RequestMapping("/orders") as "/orders.*" by default
        // (suffix pattern matching): `orders.json.xml` and `orders.` are the order action.
        fixture.backend().stubFor(post(urlPathMatching("/api/products/[^/.]+/orders\\..*")).atPriority(4)
                .willReturn(aResponse().withStatus(201).withBody("{\"order\":\"placed (suffix pattern)\"}")));
    }

    /*
     * A waiting shopper writes one letter of the protected prefix percent-encoded and changes the
     * letter case: `/API/%70roducts/10`. Spring Cloud Gateway's case-sensitive Path predicate misses
     * it, so the catch-all takes it; OtherSpellingFilter's first check (ProtectedPaths.mayMatch)
     * compares the RAW path with the prefix "/api/products/" and, seeing "%70", lets it through
     * unread. ASP.NET Core decodes %70 to "p" and routes any case: the product page, out of turn.
     */
    @Test
    void anEncodedLetterInAnotherCaseDoesNotWalkPastTheLine() {
        admitted("alice");
        String bob = waiting("bob");

        EntityExchangeResult<String> answer = send(HttpMethod.GET, "/API/%70roducts/10", "bob", bob);

        assertThat(productRequestsTheShopSaw()).as("only alice's own request reaches the shop").containsExactly(PRODUCT);
        assertThat(answer.getStatus().value()).as("gateway answered %s", answer.getResponseBody()).isIn(308, 400, 429);
    }

    /*
     * The same spelling on the order: a shopper who never queued (no token at all) posts
     * `/Api/%50roducts/10/orders` while the product is full. It goes through the catch-all to the
     * shop unqueued, never claims a completion, and an ASP.NET Core shop places the order.
     */
    @Test
    void anEncodedLetterInAnotherCaseOrdersNothingWithoutAPlace() {
        admitted("alice");

        EntityExchangeResult<String> answer = send(HttpMethod.POST, "/Api/%50roducts/10/orders", "mallory", null);

        assertThat(productRequestsTheShopSaw()).as("no order from a shopper without a place").containsExactly(PRODUCT);
        assertThat(answer.getStatus().value()).as("gateway answered %s", answer.getResponseBody()).isEqualTo(400);
    }

    /*
     * The WebSocket form: an upgrade on `/API/%70roducts/10/ws` is proxied by the catch-all, a
     * long-lived connection to the product's live endpoint that no place was spent on.
     */
    @Test
    void aWebSocketUpgradeWithAnEncodedLetterInAnotherCaseNeverReachesTheShop() {
        admitted("alice");
        String bob = waiting("bob");

        EntityExchangeResult<String> answer = fixture.client().get()
                .uri(URI.create(fixture.gateway().baseUrl() + "/API/%70roducts/10/ws"))
                .header("X-User-Id", "bob").header("Queue-Token", bob)
                .header("Connection", "Upgrade").header("Upgrade", "websocket")
                .header("Sec-WebSocket-Version", "13").header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
                .exchange().expectBody(String.class).returnResult();

        // The shop logs an upgraded request only once its socket closes: wait for it here, so the
        // log neither misses it nor spills into the next test.
        long until = System.nanoTime() + 3_000_000_000L;
        while (productRequestsTheShopSaw().size() < 2 && System.nanoTime() < until) {
            java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
        }
        assertThat(answer.getStatus().value()).as("the shop switched protocols for bob: %s", answer.getResponseHeaders())
                .isNotEqualTo(101);
        assertThat(productRequestsTheShopSaw()).containsExactly(PRODUCT);
    }

    /*
     * Unicode case folding, percent-encoded so CanonicalPaths' "printable ASCII only" check (which
     * reads the raw path) passes it: `/AP%C4%B0/products/10` is "/APİ/products/10", and
     * "İ".equalsIgnoreCase("i") in Java (Character.toLowerCase('İ') is 'i'); likewise
     * `/api/product%C5%BF/10` ("ſ", long s, upper-cases to 'S'). The gateway's own case-insensitive
     * PathPatternParser reads both as the protected route, yet mayMatch (raw, ASCII) lets them pass
     * to the catch-all. Docs say non-ASCII paths are refused: the raw-byte check misses the
     * encoded form, which is how every browser sends non-ASCII.
     */
    @Test
    void encodedUnicodeLettersThatFoldToTheProtectedPrefixAreRefused() {
        admitted("alice");
        String bob = waiting("bob");

        for (String path : List.of("/AP%C4%B0/products/10", "/ap%C4%B1/products/10", "/api/product%C5%BF/10")) {
            assertThat(PRODUCT_PAGE.matches(PathContainer.parsePath(path)))
                    .as("QueueGate's own loose reading takes %s for the product", path).isTrue();
            send(HttpMethod.GET, path, "bob", bob);
        }

        assertThat(productRequestsTheShopSaw()).containsExactly(PRODUCT);
    }

    /*
     * Rails' format segment is [^/.?]+, not just letters: `POST .../orders.1` is orders#create.
     * LooseReading strips only "." + ASCII letters, so complete-on does not match, the admitted
     * shopper's order goes through without claiming the completion, and the canonical order after
     * it buys a second time on the same admission.
     */
    @Test
    void aRailsFormatOfDigitsBuysOnceOnOneAdmission() {
        String alice = admitted("alice");

        EntityExchangeResult<String> first = send(HttpMethod.POST, ORDERS + ".1", "alice", alice);
        assertThat(first.getStatus().value()).as("the shop placed it: %s", first.getResponseBody()).isEqualTo(201);

        assertSecondOrderRefused(alice);
    }

    /*
     * An encoded letter inside the format suffix: `orders.js%6Fn`. CompletionRule decodes for the
     * pattern but strips the suffix from the RAW path, where "%6F" is no letter, so neither reading
     * matches; Rails (format "json" after unescaping) and any decoding shop with a format suffix
     * see the order action.
     */
    @Test
    void anEncodedLetterInTheFormatBuysOnceOnOneAdmission() {
        String alice = admitted("alice");

        EntityExchangeResult<String> first = send(HttpMethod.POST, ORDERS + ".js%6Fn", "alice", alice);
        assertThat(first.getStatus().value()).as("the shop placed it: %s", first.getResponseBody()).isEqualTo(201);

        assertSecondOrderRefused(alice);
    }

    /*
     * Two suffixes (`orders.json.xml`) and an empty one (`orders.`): Spring MVC's suffix pattern
     * matching (on by default up to 5.2) maps "/orders" as "/orders.*" and takes both. The docs list
     * "more than one suffix" as not read loosely; this shows what it costs against such a shop.
     */
    @Test
    void twoSuffixesOrATrailingDotBuyOnceOnOneAdmission() {
        String alice = admitted("alice");

        int placed = 0;
        for (String spelling : List.of(ORDERS + ".json.xml", ORDERS + ".", ORDERS)) {
            if (send(HttpMethod.POST, spelling, "alice", alice).getStatus().is2xxSuccessful()) {
                placed++;
            }
        }

        assertThat(placed).as("orders the shop placed on one admission").isEqualTo(1);
    }

    private static void assertSecondOrderRefused(String token) {
        EntityExchangeResult<String> second = send(HttpMethod.POST, ORDERS, "alice", token);
        assertThat(second.getStatus().value()).as("a second purchase on one admission: %s", second.getResponseBody())
                .isEqualTo(409);
        assertThat((String) JsonPath.read(second.getResponseBody(), "$.error")).isEqualTo("session_ended");
    }

    private static String admitted(String user) {
        EntityExchangeResult<String> answer = send(HttpMethod.GET, PRODUCT, user, null);
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(200);
        return answer.getResponseHeaders().getFirst("Queue-Token");
    }

    private static String waiting(String user) {
        EntityExchangeResult<String> answer = send(HttpMethod.GET, PRODUCT, user, null);
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(429);
        return answer.getResponseHeaders().getFirst("Queue-Token");
    }

    /** The path is sent exactly as written: a String URI would be re-encoded by the client. */
    private static EntityExchangeResult<String> send(HttpMethod method, String path, String user, String token) {
        WebTestClient.RequestBodySpec request = fixture.client().method(method).uri(URI.create(fixture.gateway().baseUrl() + path))
                .header("X-User-Id", user);
        if (token != null) {
            request.header("Queue-Token", token);
        }
        if (HttpMethod.POST.equals(method)) {
            request.bodyValue("{\"quantity\":1}");
        }
        return request.exchange().expectBody(String.class).returnResult();
    }

    /**
     * The URLs the shop received that a decoding, case-folding shop (ASP.NET Core; a Java router
     * using equalsIgnoreCase) reads as the product or below it.
     */
    private static List<String> productRequestsTheShopSaw() {
        return fixture.backend().findAll(anyRequestedFor(anyUrl())).stream().map(LoggedRequest::getUrl)
                .filter(url -> {
                    String path = url.contains("?") ? url.substring(0, url.indexOf('?')) : url;
                    return PRODUCT_PAGE.matches(PathContainer.parsePath(path))
                            || UriUtils.decode(path, StandardCharsets.UTF_8).matches("(?i)/api/products/.*");
                }).toList();
    }

    private static PathPatternParser anyCase() {
        PathPatternParser parser = new PathPatternParser();
        parser.setCaseSensitive(false);
        return parser;
    }
}
