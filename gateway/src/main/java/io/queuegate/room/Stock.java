package io.queuegate.room;

/**
 * What a product has left to sell, as the scripts last read it: the units not sold yet, the
 * admitted shoppers' carts included. Unknown stock is {@code null}, never a value of this type:
 * then max-active alone caps the sessions.
 *
 * @param left units not sold yet (never negative)
 * @param admitted sessions held when it was read
 * @param unitsPerShopper how many units one admission may buy (at least 1)
 */
public record Stock(long left, long admitted, int unitsPerShopper) {

    public Stock {
        if (left < 0 || admitted < 0 || unitsPerShopper < 1) {
            throw new IllegalArgumentException("a stock is never negative, and a shopper buys at least 1 unit");
        }
    }

    /** A stock as the scripts reply it ({@code left} -1 while unknown), or {@code null} when unknown. */
    public static Stock of(long left, long admitted, long unitsPerShopper) {
        return left < 0 ? null : new Stock(left, Math.max(0, admitted), (int) Math.max(1, unitsPerShopper));
    }

    /** Nothing left: nobody new is admitted. */
    public boolean soldOut() {
        return left == 0;
    }

    /**
     * Whether the stock can serve the shopper at {@code rank} (1 = next) once everyone admitted and
     * everyone ahead has bought their full share: the scripts admit while admitted x units &lt; stock.
     */
    public boolean serves(long rank) {
        return (admitted + Math.max(0, rank - 1)) * unitsPerShopper < left;
    }
}
