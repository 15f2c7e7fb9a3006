package io.queuegate.challenge;

import io.queuegate.config.JoinChallenge;

/**
 * What a join without a wait token must show before it takes a place: nothing, or a solved
 * proof of work ({@code join-challenge: pow}). Only joins pay: a request with a valid token for
 * the product never reaches this gate. Decides locally, in microseconds; the single use of a
 * solution is the join script's to enforce, with the mark of {@link Outcome.Paid}.
 */
public final class JoinGate {

    private final ProofOfWork proofOfWork;

    public JoinGate(ProofOfWork proofOfWork) {
        this.proofOfWork = proofOfWork;
    }

    /** What the gate decided for one join. */
    public sealed interface Outcome {

        /** Nothing to pay: the product asks for nothing, or something vouched for the join. */
        record Free() implements Outcome {
        }

        /** A genuine solution; the join must take its mark in Redis (it may have been used). */
        record Paid(Verdict.Solved solution) implements Outcome {
        }

        /**
         * No solution ({@code solution} absent: {@code detail} is {@code null}), or one that is
         * refused ({@code detail} says why); {@code challenge} is a fresh one to solve.
         */
        record Unpaid(String detail, Challenge challenge) implements Outcome {

            public boolean presented() {
                return detail != null;
            }
        }
    }

    /**
     * @param solution the request's {@code Queue-Challenge} header, or {@code null}
     * @param vouched whether something else already vouches for this join and the product's
     *                challenge is waived (a valid invitation will); {@code false} otherwise
     */
    public Outcome check(String productId, JoinChallenge mode, int difficulty, String solution, boolean vouched) {
        if (mode == JoinChallenge.NONE || vouched) {
            return new Outcome.Free();
        }
        if (solution == null) {
            return new Outcome.Unpaid(null, proofOfWork.issue(productId, difficulty));
        }
        Verdict verdict = proofOfWork.verify(productId, solution);
        if (verdict instanceof Verdict.Solved solved) {
            return new Outcome.Paid(solved);
        }
        return new Outcome.Unpaid(((Verdict.Refused) verdict).detail(), proofOfWork.issue(productId, difficulty));
    }

    /** A fresh challenge, for a join whose solution turned out to be used already. */
    public Challenge fresh(String productId, int difficulty) {
        return proofOfWork.issue(productId, difficulty);
    }
}
