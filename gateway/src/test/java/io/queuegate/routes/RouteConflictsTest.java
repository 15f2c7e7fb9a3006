package io.queuegate.routes;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static io.queuegate.routes.StoredRulesTest.rules;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two protected routes that can serve one product id must agree on the rules stored for it: at
 * startup every route in a disagreement is refused (and the start stops); after a refresh the
 * routes that served keep serving, and the new or changed route that disagrees is refused.
 */
class RouteConflictsTest {

    private final RouteConflicts conflicts = new RouteConflicts();

    @Test
    void routesThatCanServeOneProductWithOtherRulesAreBothRefusedAtFirst() {
        Map<String, String> refused = conflicts.check(List.of(
                rules("products", Map.of("max-active", "10")),
                rules("checkout", Map.of("max-active", "2", "join-challenge", "pow"))));

        assertThat(refused).containsOnlyKeys("products", "checkout");
        assertThat(refused.get("checkout")).startsWith("route 'checkout': it can serve the same product ids as "
                + "route 'products' with other rules: max-active (2 on 'checkout', 10 on 'products')");
        assertThat(refused.get("products")).contains("route 'checkout'").contains("max-active");
    }

    @Test
    void routesThatAgreeOnTheStoredRulesMayDifferInEverythingElse() {
        assertThat(conflicts.check(List.of(
                rules("products", Map.of("max-active", "5", "complete-on", "POST /api/products/{productId}/orders")),
                rules("paid", Map.of("max-active", "5", "join-challenge", "pow", "on-redis-failure", "open",
                        "product-id-variable", "sku", "invites", "priority", "display-name", "Paid"))))).isEmpty();
    }

    @Test
    void routesWhosePatternsCannotOverlapMayHaveTheirOwnRules() {
        assertThat(conflicts.check(List.of(
                rules("drops", Map.of("max-active", "1", "product-id-pattern", "D[0-9]+")),
                rules("sales", Map.of("max-active", "50", "product-id-pattern", "S[0-9]+"))))).isEmpty();
        // One without a pattern takes any id, the other's too.
        assertThat(new RouteConflicts().check(List.of(
                rules("drops", Map.of("max-active", "1", "product-id-pattern", "D[0-9]+")),
                rules("anything", Map.of("max-active", "50"))))).containsOnlyKeys("drops", "anything");
    }

    @Test
    void aRouteAddedLaterThatDisagreesIsRefusedAndTheOneThatServedGoesOn() {
        conflicts.check(List.of(rules("products", Map.of("max-active", "10"))));

        Map<String, String> refused = conflicts.check(List.of(
                rules("products", Map.of("max-active", "10")),
                rules("rival", Map.of("max-active", "1000"))));

        assertThat(refused).containsOnlyKeys("rival");
        // Still refused at the next refresh, for as long as it disagrees with one that serves.
        assertThat(conflicts.check(List.of(
                rules("products", Map.of("max-active", "10")),
                rules("rival", Map.of("max-active", "1000"))))).containsOnlyKeys("rival");
    }

    @Test
    void aRefusedRouteDoesNotKeepARouteThatAgreesWithThoseThatServeFromServing() {
        conflicts.check(List.of(rules("products", Map.of("max-active", "10"))));
        conflicts.check(List.of(rules("products", Map.of("max-active", "10")), rules("rival", Map.of("max-active", "1"))));

        assertThat(conflicts.check(List.of(rules("products", Map.of("max-active", "10")),
                rules("rival", Map.of("max-active", "1")), rules("drop", Map.of("max-active", "10")))))
                .containsOnlyKeys("rival");
    }

    @Test
    void aRouteChangedToDisagreeIsRefusedWhileTheOthersServe() {
        conflicts.check(List.of(rules("products", Map.of("max-active", "10")),
                rules("checkout", Map.of("max-active", "10"))));

        assertThat(conflicts.check(List.of(rules("products", Map.of("max-active", "10")),
                rules("checkout", Map.of("max-active", "10", "session-ttl", "1h"))))).containsOnlyKeys("checkout");
    }

    @Test
    void twoNewRoutesThatDisagreeWithEachOtherAreBothRefused() {
        conflicts.check(List.of(rules("products", Map.of("max-active", "10", "product-id-pattern", "P[0-9]+"))));

        assertThat(conflicts.check(List.of(
                rules("products", Map.of("max-active", "10", "product-id-pattern", "P[0-9]+")),
                rules("left", Map.of("max-active", "1", "product-id-pattern", "X[0-9]+")),
                rules("right", Map.of("max-active", "2", "product-id-pattern", "X[0-9]+")))))
                .containsOnlyKeys("left", "right");
    }

    @Test
    void aRefusedRouteServesOnceTheRouteItDisagreedWithIsGone() {
        conflicts.check(List.of(rules("products", Map.of("max-active", "10"))));
        conflicts.check(List.of(rules("products", Map.of("max-active", "10")), rules("rival", Map.of("max-active", "1"))));

        assertThat(conflicts.check(List.of(rules("rival", Map.of("max-active", "1"))))).isEmpty();
        // Now it is the one that serves.
        assertThat(conflicts.check(List.of(rules("rival", Map.of("max-active", "1")),
                rules("products", Map.of("max-active", "10"))))).containsOnlyKeys("products");
    }
}
