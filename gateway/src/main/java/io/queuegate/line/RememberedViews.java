package io.queuegate.line;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.store.script.ViewScript;

/**
 * The last view of each product this instance read ({@link RememberedView}), kept after
 * nobody asks any more: if Redis forgets, it is what this instance brings to the product's
 * recovery.
 */
final class RememberedViews {

    private final Map<String, RememberedView> remembered = new ConcurrentHashMap<>();

    /** What this instance last read of the product's line, or {@code null}. */
    RememberedView of(String productId) {
        return remembered.get(productId);
    }

    Set<String> products() {
        return Set.copyOf(remembered.keySet());
    }

    void forgetAll() {
        remembered.clear();
    }

    /** Forgets the views read before {@code readBefore} (epoch ms). */
    void forgetOlderThan(long readBefore) {
        remembered.values().removeIf(known -> known.readAt() < readBefore);
    }

    void remember(String productId, LineView view, ViewScript.Result read) {
        if (!view.known() || view.epoch() == null) {
            return;
        }
        RememberedView before = remembered.get(productId);
        if (before == null && remembered.size() >= LineViews.MAX_PRODUCTS) {
            return;
        }
        double rate = 0;
        if (before != null && before.epoch().equals(view.epoch()) && view.readAt() > before.readAt()) {
            rate = Math.max(0, view.last() - before.last()) * 1000.0 / (view.readAt() - before.readAt());
            // Keep the faster of the last two rates: a burst must not be forgotten by one quiet read.
            rate = Math.max(rate, before.ticketsPerSecond() * 0.5);
        }
        LineView.Invited invited = view.invited();
        remembered.put(productId, new RememberedView(view.epoch(), view.readAt(), view.head(), view.last(), view.left(),
                view.leftComplete(), view.drawFrom(), view.drawTo(), view.seed(), view.seedCommitment(), view.opens(),
                view.opened(), view.mode(), read.draining(), read.maxOverride(),
                read.invited() == ViewScript.Line.EMPTY ? ViewScript.Line.EMPTY
                        : new ViewScript.Line(invited.head(), invited.last(), invited.leftVersion(), invited.leftCount(),
                                false, invited.left(), invited.leftComplete(), invited.drawFrom(), invited.drawTo()),
                read.drawOpens(), rate));
    }
}
