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

    public JoinGate(ProofOfWork proofOfWork, JoinRates rates) {
        this.proofOfWork = proofOfWork;
        this.rates = rates;
    }

    /** What the gate decided for one request. */
    public sealed interface Outcome {

        /** Nothing to pay: the product asks for nothing of this caller, or something vouched for it. */
        record Free() implements Outcome {
        }

        /** A genuine solution; the join must take its mark in Redis (it may have been used). */
        record Paid(Verdict.Solved solution) implements Outcome {
        }

        /**
         * No solution ({@code detail} is {@code null}), a genuine one of a challenge too easy for
         * what a place costs the network now, or one that is refused ({@code refused}: not a
         * solution of this gateway's challenge for the product); {@code detail} says why, and
         * {@code challenge} is a fresh one to solve.
         */
        record Unpaid(String detail, Challenge challenge, boolean refused) implements Outcome {

            public boolean presented() {
                return detail != null;
            }
        }
    }

    /**
     * @param base the product's {@code pow-difficulty}
     * @param solution the request's {@code Queue-Challenge} header, or {@code null}
     * @param vouched whether something else already vouches for a new place and the product's
     *                challenge is waived (a valid invitation will); {@code false} otherwise
     * @param anonymous whether the caller is anonymous (the gateway made its id)
     * @param network the caller's network (an IPv6 /64 counts as one), for the rate
     */
    public Outcome check(String productId, JoinChallenge mode, int base, String solution, boolean vouched,
            boolean anonymous, String network) {
        if (mode == JoinChallenge.NONE || vouched || mode == JoinChallenge.ANONYMOUS && !anonymous) {
            return new Outcome.Free();
        }
        int difficulty = difficulty(productId, base, network);
        if (solution == null) {
            return new Outcome.Unpaid(null, proofOfWork.issue(productId, difficulty), false);
        }
        Verdict verdict = proofOfWork.verify(productId, solution);
        if (verdict instanceof Verdict.Solved solved) {
            if (solved.difficulty() * SLACK < difficulty) {
                return new Outcome.Unpaid("the challenge is easier than a place from this network costs now: solve "
                        + "this one", proofOfWork.issue(productId, difficulty), false);
            }
            return new Outcome.Paid(solved);
        }
        return new Outcome.Unpaid(((Verdict.Refused) verdict).detail(), proofOfWork.issue(productId, difficulty), true);
    }

    /** The difficulty a new place on the product costs the network now: the base, times its places of the hour. */
    public int difficulty(String productId, int base, String network) {
        long factor = 1 + rates.places(network, productId) / FREE_PLACES;
        return (int) Math.min(QueuePolicy.MAX_POW_DIFFICULTY, base * factor);
    }

    /** The network made a place on the product: the next place from it may cost more. */
    public void placed(String productId, String network) {
        rates.placed(network, productId);
    }

    /** A fresh challenge, for a join whose solution turned out to be used already, or that must pay. */
    public Challenge fresh(String productId, int base, String network) {
        return proofOfWork.issue(productId, difficulty(productId, base, network));
    }
}
