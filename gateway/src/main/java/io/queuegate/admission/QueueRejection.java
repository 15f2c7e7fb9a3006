package io.queuegate.admission;

import io.queuegate.web.QueueError;

/** A request QueueGate answers itself with an error, never forwarding it. */
public final class QueueRejection extends RuntimeException {

    private final QueueError error;
    private final boolean clearCookie;

    public QueueRejection(QueueError error, String message) {
        this(error, message, false);
    }

    /** @param clearCookie whether the answer should drop the caller's token cookie (it was the bad token) */
    public QueueRejection(QueueError error, String message, boolean clearCookie) {
        super(message, null, false, false);
        this.error = error;
        this.clearCookie = clearCookie;
    }

    public QueueError error() {
        return error;
    }

    public boolean clearCookie() {
        return clearCookie;
    }
}
