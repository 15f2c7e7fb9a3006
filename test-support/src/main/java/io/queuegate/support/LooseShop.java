package io.queuegate.support;

import com.github.tomakehurst.wiremock.WireMockServer;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

/**
 * Teaches the WireMock shop to read paths as common shop frameworks do, more loosely than Spring
 * Cloud Gateway's {@code Path} predicate: Express and ASP.NET route without regard to letter case,
 * Rails routes {@code orders(.:format)} so {@code orders.json} is the same action, and a
 * server-rendered shop answers a refused order with a redirect back to the cart. A gateway that
 * protects such a shop must read every request at least as loosely.
 */
public final class LooseShop {

    /** Any letter case, and an optional format suffix on the last segment. */
    private static final String PRODUCT = "(?i)/api/products/[^/.]+(\\.[a-z]+)?";
    private static final String ORDERS = "(?i)/api/products/[^/.]+/orders(\\.[a-z]+)?";
    private static final String ANYTHING_BELOW = "(?i)/api/products/[^/]+/.+";

    private LooseShop() {
    }

    /**
     * Product pages answer 200 and orders 201 in any letter case and with any format suffix, and
     * every other path below a product answers 200 (a review page, a WebSocket endpoint's plain GET).
     * Forgets what the shop was taught before.
     */
    public static void readsPathsLoosely(WireMockServer shop) {
        shop.resetMappings();
        shop.stubFor(any(urlPathMatching(ANYTHING_BELOW)).atPriority(9)
                .willReturn(aResponse().withStatus(200).withBody("{\"page\":\"below the product\"}")));
        shop.stubFor(get(urlPathMatching(PRODUCT)).atPriority(5).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withBody("{\"product\":\"ok\"}")));
        shop.stubFor(post(urlPathMatching(ORDERS)).atPriority(5).willReturn(aResponse().withStatus(201)
                .withHeader("Content-Type", "application/json").withBody("{\"order\":\"placed\"}")));
    }

    /** Every order is refused, as a server-rendered shop does it: {@code 303} back to the cart. */
    public static void redirectsRefusedOrders(WireMockServer shop) {
        shop.stubFor(post(urlPathMatching(ORDERS)).atPriority(1).willReturn(aResponse().withStatus(303)
                .withHeader("Location", "/cart?error=1")));
    }

    /** Every order is placed, and answered with a redirect to it (Post/Redirect/Get). */
    public static void redirectsPlacedOrders(WireMockServer shop) {
        shop.stubFor(post(urlPathMatching(ORDERS)).atPriority(1).willReturn(aResponse().withStatus(303)
                .withHeader("Location", "/orders/17")));
    }
}
