package io.queuegate.room;

/**
 * Where a user stands in one product's queue, as one script read it.
 *
 * @param state active, waiting (or in a sale's pre-queue), absent, or turned away
 * @param rank 1-based place in line when waiting (1 = next); in the pre-queue, how many are in
 *             it (a place is only given at opening); else 0
 * @param admissionRate the product's measured admissions per second (0 while unknown)
 */
public record Placement(State state, long rank, double admissionRate) {

    /** The states of {@code lua/codes.lua}'s {@code STATE} table. */
    public enum State implements ScriptCode {
        ACTIVE("active"),
        WAITING("waiting"),
        /** Waiting for a sale to open; places are drawn at opening. */
        PRE_QUEUE("pre_queue"),
        NOT_FOUND("not_found"),
        /** The queue takes nobody new: an operator drains it. */
        DRAINING("draining"),
        /** The sale has closed and takes nobody new. */
        SALE_ENDED("sale_ended"),
        /** An operator closed the room. */
        ROOM_CLOSED("room_closed"),
        /** Active, but another request of the session is completing it (complete-on) right now. */
        COMPLETING("completing"),
        /** Would take a new place, but brought no valid invitation where one is needed. */
        INVITE_REQUIRED("invite_required"),
        /** Would take a new place, but the invitation has made all the places it may. */
        INVITE_USED("invite_used"),
        /** The join's proof-of-work solution was used before, on this instance or another: nothing was done. */
        CHALLENGE_USED("challenge_used"),
        /**
         * A completing request ({@code complete-on}) with a token, of someone who holds no place: a
         * completion never makes one, so one admission buys at most once.
         */
        SESSION_ENDED("session_ended"),
        /** Would take a new place, and the product asks a proof of work for it, which the request did not bring. */
        CHALLENGE_REQUIRED("challenge_required"),
        /** Would take a new place beyond the caller's join limit. */
        JOIN_LIMITED("join_limited"),
        /**
         * The stock is gone: nobody new is admitted, and a place in line is kept (until a restock or
         * closes-at) but not served; the admitted finish.
         */
        SOLD_OUT("sold_out");

        private final String code;

        State(String code) {
            this.code = code;
        }

        @Override
        public String code() {
            return code;
        }

        /** Whether the user holds a place in line (waiting, or in a pre-queue). */
        public boolean inLine() {
            return this == WAITING || this == PRE_QUEUE;
        }
    }
}
