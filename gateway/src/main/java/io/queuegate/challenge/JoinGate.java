package io.queuegate.challenge;

import io.queuegate.config.JoinChallenge;
import io.queuegate.config.QueuePolicy;

/**
 * What a request must show before it takes a new place: nothing, or a solved proof of work
 * ({@code join-challenge: pow} from everyone, {@code anonymous} from anonymous callers). Every new
 * place pays, the first and any later one (after a leave, a completion, an expiry), with or
 * without an old token; whether the request would make one is the join script's to say, so a
 * shopper who holds a place pays nothing. Decides locally, in microseconds; the single use of a
 * solution is the join script's to enforce, with the mark of {@link Outcome.Paid}.
 *
 * <p>A browser without JavaScript pays with a wait instead ({@link WaitTickets}): the base wait
 * times the same factor, one open ticket per network and product.
 *
 * <p>The difficulty rises with the places the client's network made on the product in the last
 * hour ({@link JoinRates}, counted by this instance): the {@code k}-th place of the hour (from 0)
 * costs {@code pow-difficulty × (1 + k / FREE_PLACES)}, so the first {@link #FREE_PLACES} cost the
 * base and every 30 more one base more. One honest shopper behind a carrier's NAT with 600 others
 * in that hour pays at most 20 times the base; one address that takes 1,000 places an hour pays
 * about 17 times the base for each on average: its cost grows with the square of its places.
 */
public final class JoinGate {

    /**
     * Places an hour a network makes on one product at the base difficulty, and how many more
     * raise it by one base: a household, an office.
     */
    public static final int FREE_PLACES = 30;

    /** A solution of a challenge easier than this share of the difficulty asked now is refused. */
    private static final int SLACK = 2;

    private final ProofOfWork proofOfWork;
    private final JoinRates rates;
    private final WaitTickets tickets;
    private final java.time.Duration baseWait;

    /**
     * @param tickets the waits a browser without JavaScript serves instead
     * @param baseWait the wait at the base difficulty; it rises with the network's places as the
     *                 difficulty does
     */
    public JoinGate(ProofOfWork proofOfWork, JoinRates rates, WaitTickets tickets, java.time.Duration baseWait) {
        this.proofOfWork = proofOfWork;
        this.rates = rates;
        this.tickets = tickets;
        this.baseWait = baseWait;
    }

    /**
     * What a new place costs now, either way: a challenge to solve, or the network's wait ticket
     * (the same one while it is open).
     */
    public record Price(Challenge challenge, WaitTickets.Ticket ticket) {
    }

    /** What the gate decided for one request. */
    public sealed interface Outcome {

        /** Nothing to pay: the product asks for nothing of this caller, or something vouched for it. */
        record Free() implements Outcome {
        }

        /**
         * A genuine solution, or a wait ticket that is ready ({@code ticket}); the join must take its
         * mark in Redis (it may have been used).
         */
        record Paid(Verdict.Solved solution, boolean ticket) implements Outcome {
        }

        /**
         * No solution ({@code detail} is {@code null}; a wait ticket that is not ready, or that
         * proves nothing, counts as none), a genuine one of a challenge too easy for what a place
         * costs the network now, or one that is refused ({@code refused}: not a solution of this
         * gateway's challenge for the product); {@code detail} says why, and {@code price} is what
         * to pay: a fresh challenge, or the network's wait ticket.
         */
        record Unpaid(String detail, Price price, boolean refused) implements Outcome {

            public boolean presented() {
                return detail != null;
            }
        }
    }

    /**
     * @param base the product's {@code pow-difficulty}
     * @param solution the request's {@code Queue-Challenge} header, or {@code null}
     * @param waitTicket the request's wait ticket ({@link WaitTickets#COOKIE}), or {@code null};
     *                   read only without a solution
     * @param vouched whether something else already vouches for a new place and the product's
     *                challenge is waived (a valid invitation will); {@code false} otherwise
     * @param anonymous whether the caller is anonymous (the gateway made its id)
     * @param network the caller's network (an IPv6 /64 counts as one), for the rate
     */
    public Outcome check(String productId, JoinChallenge mode, int base, String solution, String waitTicket,
            boolean vouched, boolean anonymous, String network) {
        if (mode == JoinChallenge.NONE || vouched || mode == JoinChallenge.ANONYMOUS && !anonymous) {
            return new Outcome.Free();
        }
        int difficulty = difficulty(productId, base, network);
        if (solution == null) {
            if (waitTicket != null
                    && tickets.check(productId, network, waitTicket) instanceof Verdict.Solved ready) {
                // Priced when it was issued: what the network's places cost since does not raise it.
                return new Outcome.Paid(ready, true);
            }
            return new Outcome.Unpaid(null, price(productId, base, difficulty, network), false);
        }
        Verdict verdict = proofOfWork.verify(productId, solution);
        if (verdict instanceof Verdict.Solved solved) {
            if (solved.difficulty() * SLACK < difficulty) {
                return new Outcome.Unpaid("the challenge is easier than a place from this network costs now: solve "
                        + "this one", price(productId, base, difficulty, network), false);
            }
            return new Outcome.Paid(solved, false);
        }
        String detail = verdict instanceof Verdict.Refused refused ? refused.detail() : "not a solution";
        return new Outcome.Unpaid(detail, price(productId, base, difficulty, network), true);
    }

    /** The difficulty a new place on the product costs the network now: the base, times its places of the hour. */
    public int difficulty(String productId, int base, String network) {
        long factor = 1 + rates.places(network, productId) / FREE_PLACES;
        return (int) Math.min(QueuePolicy.MAX_POW_DIFFICULTY, base * factor);
    }

    /**
     * The network made a place on the product: the next place from it may cost more, and its wait
     * ticket (spent, if that paid) is no longer the open one.
     */
    public void placed(String productId, String network) {
        rates.placed(network, productId);
        tickets.spent(productId, network);
    }

    /**
     * What a join whose solution turned out to be used already, or that must pay, pays now: a fresh
     * challenge, or the network's wait ticket (a new one when the one used was spent).
     *
     * @param ticketSpent whether the join paid with a wait ticket that was used already
     */
    public Price fresh(String productId, int base, String network, boolean ticketSpent) {
        if (ticketSpent) {
            tickets.spent(productId, network);
        }
        return price(productId, base, difficulty(productId, base, network), network);
    }

    private Price price(String productId, int base, int difficulty, String network) {
        // The wait rises with the network's places as the difficulty does.
        java.time.Duration wait = baseWait.multipliedBy(Math.max(1, difficulty / Math.max(1, base)));
        return new Price(proofOfWork.issue(productId, difficulty), tickets.open(productId, network, wait, difficulty));
    }
}
