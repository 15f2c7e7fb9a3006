package io.queuegate.store.script;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.queuegate.room.Invite;
import io.queuegate.room.JoinTerms;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement;
import io.queuegate.room.Stock;
import io.queuegate.store.DrawSeed;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/**
 * {@code join.lua}: enters users into a product's line, or finds where they stand; one call for
 * every join and Redis-side poll an instance gathered for the product (group commit).
 */
public final class JoinScript extends ProductScript {

    /**
     * How many words of the call's ARGV come before the first user's (after the product id): the
     * rules' count and words, then the count and words of the call's own five named arguments
     * ({@link #arguments}; ScriptContractTest holds the two to one number).
     */
    public static final int WORDS_BEFORE_USERS = 1 + ProductRules.names().size() * 2 + 1 + 5 * 2;

    /** Each user's arguments, in the order join.lua's {@code USER_ARGUMENTS} names them. */
    public enum UserArgument {
        USER, CLAIM, INVITE, MARK, MARK_TTL, RECLAIM, TERMS, BUCKET
    }

    public JoinScript(ScriptRunner runner) {
        super(runner, "join.lua");
    }

    /**
     * @param now the time the script decides at (epoch ms)
     * @param idle how long the product's keys outlive its last visitor
     * @param drawSeed the seed of a pre-queue's draw and its commitment, in case this call opens
     *                 one; {@code null} when no draw can open (no opens-at, or it has passed)
     * @param joiners the users, decided in this order
     * @param configured whether the product is configured ({@code queuegate.products}): its keys
     *                   then live {@code idle} even while nobody waits in it
     */
    public record Args(String productId, long now, ProductRules rules, Duration idle, DrawSeed drawSeed,
            List<Joiner> joiners, boolean configured) {

        /** A call for a product that is not configured. */
        public Args(String productId, long now, ProductRules rules, Duration idle, DrawSeed drawSeed,
                List<Joiner> joiners) {
            this(productId, now, rules, idle, drawSeed, joiners, false);
        }

        /** One user's call; {@code claim} as in {@link Joiner}. */
        public Args(String productId, String userId, long now, ProductRules rules, Duration idle, DrawSeed drawSeed,
                String claim) {
            this(productId, now, rules, idle, drawSeed, List.of(new Joiner(userId, claim)));
        }
    }

    /**
     * @param promoted users this call admitted (the callers among them, when admitted at once)
     * @param abandoned users this call dropped from the line as not seen lately (abandon-after)
     * @param joined each user's outcome, in the order of the call's joiners
     */
    public record Result(long promoted, long abandoned, List<Joined> joined) {

        public Result(long promoted, List<Joined> joined) {
            this(promoted, 0, joined);
        }

        /** The only user's outcome, for a call of one. */
        public Joined only() {
            if (joined.size() != 1) {
                throw new IllegalStateException("a call of " + joined.size() + " users has no only outcome");
            }
            return joined.get(0);
        }

        /** The only user's placement, for a call of one. */
        public Placement placement() {
            return only().placement();
        }

        /** Whether the only user was given a new ticket, for a call of one. */
        public boolean enqueued() {
            return only().enqueued();
        }
    }

    public Mono<Result> run(Args args) {
        return fields(args.productId(), arguments(args)).map(JoinScript::result);
    }

    /**
     * The script's ARGV after the product id, as join.lua reads it: the rules ({@link ProductRules#wire()}),
     * the call's own arguments by name, each list after its number of words, then each user's
     * arguments in {@link UserArgument}'s order. For callers that must send the script raw (the
     * benchmarks pipeline it), so they never spell it twice.
     */
    public static String[] arguments(Args args) {
        List<String> argv = new ArrayList<>(WORDS_BEFORE_USERS + UserArgument.values().length * args.joiners().size());
        counted(argv, args.rules().wire());
        counted(argv, List.of(
                "now", Long.toString(args.now()),
                "idle_ttl", Long.toString(args.idle().toMillis()),
                "draw_seed", args.drawSeed() == null ? "" : args.drawSeed().seed(),
                "seed_commitment", args.drawSeed() == null ? "" : args.drawSeed().commitment(),
                "configured", args.configured() ? "1" : ""));
        for (Joiner joiner : args.joiners()) {
            Map<UserArgument, String> user = new EnumMap<>(UserArgument.class);
            user.put(UserArgument.USER, joiner.userId());
            user.put(UserArgument.CLAIM, joiner.claim() == null ? "" : joiner.claim());
            user.put(UserArgument.INVITE, invite(joiner.invite()));
            user.put(UserArgument.MARK, joiner.challengeMark() == null ? "" : joiner.challengeMark());
            user.put(UserArgument.MARK_TTL,
                    joiner.challengeMark() == null ? "" : Long.toString(joiner.markTtl().toMillis()));
            user.put(UserArgument.RECLAIM, reclaim(joiner.reclaim()));
            user.put(UserArgument.TERMS, terms(joiner.terms()));
            user.put(UserArgument.BUCKET, Integer.toString(QueueKeys.bucketOf(joiner.userId())));
            if (user.size() != UserArgument.values().length) {
                throw new IllegalStateException("join.lua takes every UserArgument, given only " + user.keySet());
            }
            argv.addAll(user.values());
        }
        return argv.toArray(String[]::new);
    }

    /** As join.lua reads them: a letter each. */
    private static String terms(JoinTerms terms) {
        return (terms.completing() ? "c" : "") + (terms.unpaid() ? "p" : "") + (terms.limited() ? "l" : "");
    }

    /** As join.lua reads it. */
    private static String invite(Invite invite) {
        if (invite.id() != null) {
            return invite.uses() + " " + invite.expiresAt() + " " + (invite.invitedLine() ? "invited" : "main") + " "
                    + invite.id();
        }
        return invite.required() ? "required" : "";
    }

    /** The reply's {@code users} entries are fixed lists: state, rank, enqueued, ticket, session end. */
    static Result result(ScriptReply reply) {
        double rate = reply.number("rate") / 1_000_000.0;
        String commitment = reply.text("commitment");
        Stock stock = Stock.of(reply.number("stock"), reply.number("admitted"), reply.number("units"));
        List<Joined> joined = new ArrayList<>();
        for (Object entry : reply.list("users")) {
            List<?> user = (List<?>) entry;
            Placement.State state = ScriptReply.code(String.valueOf(user.get(0)), Placement.State.class, "join.lua");
            long ticket = ((Number) user.get(3)).longValue();
            long sessionEnd = ((Number) user.get(4)).longValue();
            joined.add(new Joined(new Placement(state, ((Number) user.get(1)).longValue(), rate),
                    ((Number) user.get(2)).longValue() == 1, ticket == 0 ? null : ticket,
                    commitment.isEmpty() ? null : commitment, sessionEnd == 0 ? null : sessionEnd, stock));
        }
        return new Result(reply.number("promoted"), reply.number("abandoned"), joined);
    }
}
