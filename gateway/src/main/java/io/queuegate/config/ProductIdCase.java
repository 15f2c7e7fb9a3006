package io.queuegate.config;

/**
 * Whether product ids that differ only in ASCII letter case are one product. Shops that route
 * paths without regard to case (Express, ASP.NET) serve {@code RD1} and {@code rd1} alike, so the
 * gateway keeps one line for both unless told the shop's ids are case-sensitive.
 */
public enum ProductIdCase {

    /** {@code RD1} and {@code rd1} are one product, kept in lower case (the default): two products merged is the safe failure. */
    FOLD,

    /** Ids are kept as the path spells them: for shops whose ids are case-sensitive and whose routes are too. */
    KEEP
}
