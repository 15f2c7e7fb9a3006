package io.queuegate.line;

import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

import io.queuegate.store.Channels;
import io.queuegate.store.QueueKeys;

import reactor.core.Disposable;
import reactor.core.Disposables;

/** What the scripts announce about a product's line that {@link LineViews} acts on. */
final class LineAnnouncements {

    /** What admin.lua announces as released when an operator changed a product. */
    private static final String EVERYONE = "*";

    private LineAnnouncements() {
    }

    /**
     * Listens for an operator's change of a product (admin.lua announces it as everyone released)
     * and for the places a join made in a product's invited line (join.lua announces how many).
     */
    static Disposable listen(Channels channels, Consumer<String> changed, ObjLongConsumer<String> invitedJoined) {
        Disposable operatorChanges = channels.listen(QueueKeys.RELEASED_PATTERN, (channel, message) -> {
            if (EVERYONE.equals(message)) {
                changed.accept(QueueKeys.productOfReleasedChannel(channel));
            }
        });
        Disposable invitedJoins = channels.listen(QueueKeys.INVITED_JOINED_PATTERN, (channel, message) ->
                invitedJoined.accept(QueueKeys.productOfInvitedJoinedChannel(channel), count(message)));
        return Disposables.composite(operatorChanges, invitedJoins);
    }

    private static long count(String message) {
        try {
            return Long.parseLong(message);
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }
}
