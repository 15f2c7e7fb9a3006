package io.queuegate.routes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds protected routes that would share a product's line under different rules. The scripts
 * keep one set of rules per product, written by the route of the last join, so two routes that can
 * serve one product id with different rules would take turns setting its max-active, its
 * session's length or its stock. Any two protected routes can, unless their product-id-patterns
 * provably cannot overlap ({@link ProductIdPatterns}); such routes must have equal
 * {@link StoredRules}. The first check (startup) refuses every route in a disagreement; each later
 * one (a refresh) lets the routes that served before go on serving, refuses the new or changed
 * route that disagrees with one of them, and refuses both of two new routes that disagree with each
 * other (neither served yet, so neither's rules can be said to be the product's).
 */
final class RouteConflicts {

    /** The routes that passed the last check, as they were then: a route as it was is not new. */
    private Map<String, StoredRules> serving = Map.of();

    /**
     * Checks the protected routes that are valid by themselves and remembers which pass.
     *
     * @param routes each route's stored rules, in the routes' order
     * @return the refused routes by id, each with why (every route it disagrees with); empty when all agree
     */
    synchronized Map<String, String> check(List<StoredRules> routes) {
        List<StoredRules> served = new ArrayList<>();
        List<StoredRules> fresh = new ArrayList<>();
        for (StoredRules route : routes) {
            (route.sameAs(serving.get(route.routeId())) ? served : fresh).add(route);
        }
        // Routes that served together agreed then, and nothing of theirs changed: only what is new is judged.
        Map<String, List<String>> reasons = new LinkedHashMap<>();
        for (StoredRules route : fresh) {
            for (StoredRules old : served) {
                disagreement(route, old).ifPresent(why -> reasons.computeIfAbsent(route.routeId(),
                        id -> new ArrayList<>()).add(why));
            }
        }
        // A route refused already cannot serve, so what it disagrees with does not matter; of two new
        // ones that disagree, neither is the product's.
        List<StoredRules> undecided = fresh.stream().filter(route -> !reasons.containsKey(route.routeId())).toList();
        for (int i = 0; i < undecided.size(); i++) {
            StoredRules first = undecided.get(i);
            for (StoredRules second : undecided.subList(i + 1, undecided.size())) {
                disagreement(first, second).ifPresent(why -> reasons.computeIfAbsent(first.routeId(),
                        id -> new ArrayList<>()).add(why));
                disagreement(second, first).ifPresent(why -> reasons.computeIfAbsent(second.routeId(),
                        id -> new ArrayList<>()).add(why));
            }
        }
        Map<String, StoredRules> passed = new LinkedHashMap<>();
        routes.stream().filter(route -> !reasons.containsKey(route.routeId()))
                .forEach(route -> passed.put(route.routeId(), route));
        serving = passed;
        Map<String, String> refused = new LinkedHashMap<>();
        reasons.forEach((id, why) -> refused.put(id, "route '" + id + "': it " + String.join("; and ", why)
                + ". A product has one line in Redis, kept under one set of these rules: give the routes equal "
                + "values (a product's own, under queuegate.products.<id>, applies on every route), or "
                + "product-id-patterns that cannot overlap (different literal beginnings, such as A[0-9]+ and B[0-9]+)"));
        return refused;
    }

    /** Why {@code route} may not serve beside {@code other}, if it may not. */
    private static Optional<String> disagreement(StoredRules route, StoredRules other) {
        List<String> differences = route.differencesFrom(other);
        if (differences.isEmpty() || !route.mayShareProductsWith(other)) {
            return Optional.empty();
        }
        return Optional.of("can serve the same product ids as route '" + other.routeId() + "' with other rules: "
                + String.join(", ", differences));
    }
}
