package io.queuegate.config;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The products {@code queuegate.products} configures, read and checked at startup: keyed by their
 * folded ids, each product's settings (and the route defaults) valid rules, and invitations only
 * where a key can check them.
 */
final class ConfiguredProducts {

    private ConfiguredProducts() {
    }

    /**
     * The products by id in lower case, as routes read ids by default ({@code product-id-case: fold}):
     * two keys that differ only in case would be one product with two settings, and fail.
     */
    static Map<String, QueueSettings> folded(Map<String, QueueSettings> products) {
        Map<String, QueueSettings> folded = new HashMap<>();
        Map<String, String> spelledAs = new HashMap<>();
        products.forEach((id, settings) -> {
            String key = LooseReading.folded(id);
            String other = spelledAs.putIfAbsent(key, id);
            if (other != null) {
                throw new IllegalArgumentException("queuegate.products." + other + " and queuegate.products." + id
                        + " are one product: ids are read in any letter case (product-id-case: fold); keep one");
            }
            folded.put(key, settings);
        });
        return Map.copyOf(folded);
    }

    /**
     * Refuses the startup when the route defaults or a product's settings make no valid rules, or
     * a product asks for invitations that no configured key can check.
     */
    static void check(QueueSettings routeDefaults, Map<String, QueueSettings> products,
            QueueGateProperties.Invites invites) {
        try {
            QueuePolicy.from(routeDefaults);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("queuegate.route-defaults: " + ex.getMessage(), ex);
        }
        products.forEach((id, override) -> {
            try {
                QueuePolicy.from(override);
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("queuegate.products." + id + ": " + ex.getMessage(), ex);
            }
        });
        for (Map.Entry<String, QueueSettings> product : products.entrySet()) {
            InviteMode mode = product.getValue().invites();
            if (mode != null && mode != InviteMode.OFF && !invites.configured()) {
                throw new IllegalArgumentException("queuegate.products." + product.getKey() + ".invites is "
                        + mode.name().toLowerCase(Locale.ROOT) + ", but no invitation key is configured: "
                        + QueueGateProperties.Invites.WHICH_KEY);
            }
        }
    }
}
