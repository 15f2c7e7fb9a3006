package io.queuegate.admission;

import java.time.Instant;

import io.queuegate.challenge.Challenge;
import io.queuegate.challenge.JoinGate;
import io.queuegate.challenge.WaitTickets;
import io.queuegate.room.Stock;

/**
 * The admission decision for one request; only the web layer turns it into HTTP.
 */
public sealed interface Admission {

    /**
     * The caller holds a place: forward.
     *
     * @param issuedToken non-null when a new token was made
     * @param claim the id of the session's completion claim when this request holds it (it
     *              matches {@code complete-on}): its success ends the session; else {@code null}
     * @param madePlace whether this very request made the caller's place (admitted as it joined):
     *                  should the shop answer that it sells no such product (404), the place goes
     */
    record Active(Caller caller, String issuedToken, String claim, boolean madePlace) implements Admission {

        public Active(Caller caller, String issuedToken) {
            this(caller, issuedToken, null, false);
        }
    }

    /**
     * The caller waits at {@code rank} (1 = next) and holds {@code token}.
     *
     * @param newToken whether {@code token} was signed for this answer (else it is the one the
     *                 caller presented, which still says the same)
     * @param rank in a sale's pre-queue ({@code opensAt} set), how many are in it: places are only
     *             drawn at opening
     * @param estimatedWaitSeconds {@code null} until the product's admission rate is known
     * @param opensAt when the sale opens, while the caller is in its pre-queue; else {@code null}
     * @param retryAfterSeconds when to ask again
     * @param seedCommitment the commitment to the seed of the product's last pre-queue draw (SHA-256
     *                       of the seed, hex), or {@code null} when it has none
     * @param comeBackBy in a sale's pre-queue, the latest the caller may come back after the
     *                   opening and keep the place ({@link RetryAfter#comeBackBy}); else {@code null}
     * @param stock what the product has left to sell, {@code null} while unknown
     */
    record Waiting(Caller caller, long rank, String token, boolean newToken, Long estimatedWaitSeconds, Instant opensAt,
            long retryAfterSeconds, String seedCommitment, Instant comeBackBy, Stock stock) implements Admission {

        public boolean preQueued() {
            return opensAt != null;
        }

        /**
         * Whether the stock left can serve this place once everyone ahead has bought; {@code null}
         * while the stock is unknown, and in a pre-queue, where places are drawn at opening.
         */
        public Boolean withinStock() {
            return stock == null || preQueued() ? null : stock.serves(rank);
        }
    }

    /**
     * The request is refused, never forwarded.
     *
     * @param detail what exactly was wrong, safe to show the caller, or {@code null}
     * @param clearCookie whether the caller's token cookie was the bad part and should go
     * @param retryAfterSeconds when trying again may help, or 0 when it will not
     * @param holdsPlace whether the caller holds a place that is kept (a shopper in line told the
     *                   product sold out), so the answer may say so
     */
    record Rejected(Refusal reason, String detail, boolean clearCookie, long retryAfterSeconds, boolean holdsPlace)
            implements Admission {

        public Rejected(Refusal reason, String detail, boolean clearCookie, long retryAfterSeconds) {
            this(reason, detail, clearCookie, retryAfterSeconds, false);
        }

        public static Rejected of(QueueRejection rejection) {
            return new Rejected(rejection.reason(), rejection.detail(), rejection.clearCookie(), 0);
        }
    }

    /**
     * A join that must pay the product's proof of work first: refused, never forwarded, with a
     * fresh challenge to solve.
     *
     * @param reason {@link Refusal#CHALLENGE_REQUIRED}, {@link Refusal#CHALLENGE_INVALID} or
     *               {@link Refusal#CHALLENGE_USED}
     * @param detail what exactly was wrong, safe to show the caller, or {@code null}
     * @param challenge the proof of work to solve
     * @param ticket the wait a browser without JavaScript serves instead, or {@code null}
     */
    record Challenged(Refusal reason, String detail, Challenge challenge, WaitTickets.Ticket ticket)
            implements Admission {

        Challenged(Refusal reason, String detail, JoinGate.Price price) {
            this(reason, detail, price.challenge(), price.ticket());
        }
    }

    /** Redis could not answer and the route fails closed. */
    record Unavailable() implements Admission {
    }

    /** Redis could not answer and the route fails open: forward unchecked. */
    record Unchecked() implements Admission {
    }
}
