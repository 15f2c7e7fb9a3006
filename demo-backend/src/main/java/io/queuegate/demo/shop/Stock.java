package io.queuegate.demo.shop;

import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The remaining units of one product. Lock-free so that a flash sale never parks an event-loop thread,
 * and checked-then-set atomically so that it never goes below zero, however many orders race for the last unit.
 */
public final class Stock {

    private final AtomicInteger remaining;

    public Stock(int initial) {
        if (initial < 0) {
            throw new IllegalArgumentException("Initial stock must not be negative: " + initial);
        }
        this.remaining = new AtomicInteger(initial);
    }

    public int remaining() {
        return remaining.get();
    }

    /**
     * Takes {@code quantity} units if they are all still there; otherwise takes nothing.
     *
     * @return the units left right after this take (not a later re-read, which another order may have changed),
     *         or empty if there were not enough
     */
    public OptionalInt tryTake(int quantity) {
        if (quantity < 1) {
            throw new IllegalArgumentException("Quantity must be positive: " + quantity);
        }
        while (true) {
            int current = remaining.get();
            if (current < quantity) {
                return OptionalInt.empty();
            }
            int left = current - quantity;
            if (remaining.compareAndSet(current, left)) {
                return OptionalInt.of(left);
            }
            // another order changed the stock between our read and our write: re-check against the new value
        }
    }
}
