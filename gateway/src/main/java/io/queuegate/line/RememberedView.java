package io.queuegate.line;

import io.queuegate.room.RoomMode;
import io.queuegate.store.script.ViewScript;

/**
 * The last view of a product this instance read, as its recovery needs it.
 *
 * @param epoch the epoch of the Redis data it was read in
 * @param readAt when the read was sent (epoch ms)
 * @param left the positions given up ahead of the head, ascending (incomplete when
 *             {@code leftComplete} is false)
 * @param drawFrom and {@code drawTo}: the draw's first and last ticket, -1 when none or open
 * @param seed the closed draw's seed, {@code ""} while it is secret
 * @param commitment the draw's commitment, or {@code null}
 * @param opened the opens-at the sale opened at, -1 when none
 * @param maxOverride the operator's max-active, -1 when unset
 * @param invited the invited line, {@link ViewScript.Line#EMPTY} when none
 * @param drawOpens the opens-at the last draw was opened for, -1 when none
 * @param ticketsPerSecond how fast the line took tickets between the last two reads
 */
public record RememberedView(String epoch, long readAt, long head, long last, long[] left, boolean leftComplete,
        long drawFrom, long drawTo, String seed, String commitment, long opens, long opened, RoomMode mode,
        boolean draining, long maxOverride, ViewScript.Line invited, long drawOpens, double ticketsPerSecond) {
}
