package io.queuegate.web;

import java.util.Locale;

/** What the shopper pages call a product in a language: its display-name there, else its id. */
@FunctionalInterface
public interface ProductNames {

    /** Every product by its id. */
    ProductNames IDS = (productId, locale) -> productId;

    /** The name of {@code productId} for a page in {@code locale}; never {@code null}. */
    String of(String productId, Locale locale);
}
