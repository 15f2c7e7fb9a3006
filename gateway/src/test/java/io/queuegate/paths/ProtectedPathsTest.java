package io.queuegate.paths;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.webflux.autoconfigure.WebFluxProperties;
import org.springframework.cloud.gateway.handler.predicate.PathRoutePredicateFactory;
import org.springframework.cloud.gateway.route.Route;

import static org.assertj.core.api.Assertions.assertThat;

/** The protected routes' paths read loosely, and each spelling's way back to the route's own. */
class ProtectedPathsTest {

    private static final Route PRODUCTS = route("products", true, "/api/products/{productId}/**",
            "/api/products/{productId}");
    private static final Route CHECKOUT = route("checkout", true, "/Shop/Checkout/{productId}/confirm");
    private static final Route EVERYTHING = route("everything-else", false, "/**");

    private final ProtectedPaths paths = ProtectedPaths.of(List.of(PRODUCTS, CHECKOUT, EVERYTHING));

    @Test
    void readsTheProtectedRoutesPathPatterns() {
        assertThat(ProtectedPaths.pathPatterns(PRODUCTS)).containsExactly("/api/products/{productId}/**",
                "/api/products/{productId}");
    }

    @Test
    void aPathElsewhereCostsOneComparison() {
        assertThat(paths.mayMatch("/docs/index.html")).isFalse();
        assertThat(paths.mayMatch("/API/products/10")).isTrue();
        assertThat(ProtectedPaths.of(List.of(PRODUCTS)).mayMatch("/docs")).isFalse();
        assertThat(ProtectedPaths.of(List.of(EVERYTHING)).mayMatch("/api/products/10")).isFalse();
    }

    @Test
    void spellsALetterCaseAFormatSuffixAndATrailingSlashTheRoutesWay() {
        assertThat(paths.spell("/API/Products/10")).isEqualTo(new ProtectedPaths.Spelling(PRODUCTS, "/api/products/10"));
        assertThat(paths.spell("/API/products/10/Reviews/AbC").path()).isEqualTo("/api/products/10/Reviews/AbC");
        assertThat(paths.spell("/API/products/10.json").path()).isEqualTo("/api/products/10.json");
        assertThat(paths.spell("/API/products/10/").path()).isEqualTo("/api/products/10");
        assertThat(paths.spell("/shop/checkout/7/CONFIRM.html")).isEqualTo(
                new ProtectedPaths.Spelling(CHECKOUT, "/Shop/Checkout/7/confirm"));
        assertThat(paths.spell("/api/products/10")).as("already the route's own")
                .isEqualTo(new ProtectedPaths.Spelling(PRODUCTS, "/api/products/10"));
    }

    @Test
    void aPathNoProtectedRouteReadsIsNotSpelled() {
        assertThat(paths.spell("/api/productz/10")).isNull();
        assertThat(paths.spell("/shop/checkout/7")).isNull();
    }

    static Route route(String id, boolean queued, String... patterns) {
        PathRoutePredicateFactory factory = new PathRoutePredicateFactory(new WebFluxProperties());
        PathRoutePredicateFactory.Config config = new PathRoutePredicateFactory.Config().setPatterns(List.of(patterns));
        return Route.async().id(id).uri("http://shop").predicate(factory.apply(config))
                .metadata(queued ? Map.of("queue", Map.of("max-active", 1)) : Map.of()).build();
    }
}
