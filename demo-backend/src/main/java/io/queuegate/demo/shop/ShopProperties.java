package io.queuegate.demo.shop;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The catalogue, bound from {@code shop.*}.
 *
 * @param products the products on sale, in display order; default none
 */
@ConfigurationProperties(prefix = "shop")
public record ShopProperties(List<Product> products) {

    public ShopProperties {
        products = products == null ? List.of() : List.copyOf(products);
    }

    /**
     * One product and the stock it starts with.
     *
     * @param id    the id used in URLs; no default, required
     * @param name  the display name; default the id
     * @param price the unit price in cents; default 0
     * @param stock the units on sale at startup; default 0
     */
    public record Product(String id, String name, long price, int stock) {

        public Product {
            // fail at startup rather than serve a catalogue that cannot be ordered from
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("shop.products[].id is required");
            }
            if (price < 0) {
                throw new IllegalArgumentException("Product " + id + " has a negative price");
            }
            if (stock < 0) {
                throw new IllegalArgumentException("Product " + id + " has a negative stock");
            }
            if (name == null || name.isBlank()) {
                name = id;
            }
        }
    }
}
