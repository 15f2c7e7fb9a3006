package io.queuegate.admission;

/** A request the waiting room refuses: it is answered with an error, never forwarded. */
public final class QueueRejection extends RuntimeException {

    private final Refusal reason;
    private final boolean clearCookie;

    /** @param detail what exactly was wrong, safe to show the caller; {@code null} for the reason's usual words */
    public QueueRejection(Refusal reason, String detail) {
        this(reason, detail, false);
    }

    /** @param clearCookie whether the answer should drop the caller's token cookie (it was the bad token) */
    public QueueRejection(Refusal reason, String detail, boolean clearCookie) {
        super(detail, null, false, false);
        this.reason = reason;
        this.clearCookie = clearCookie;
    }

    public Refusal reason() {
        return reason;
    }

    /** What exactly was wrong, or {@code null}. */
    public String detail() {
        return getMessage();
    }

    public boolean clearCookie() {
        return clearCookie;
    }
}
