package io.queuegate.store.script;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.queuegate.store.DrawSeed;
import io.queuegate.room.Placement;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.Reclaim;
import io.queuegate.room.Stock;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/**
 * {@code join.lua}: enters users into a product's line, or finds where they stand; one call for
 * every join and Redis-side poll an instance gathered for the product (group commit).
 */
public final class JoinScript extends ProductScript {

    /**
     * The call's arguments after the product id, in the order join.lua's {@code ARGUMENTS} names them
     * (its own name, lower case, is the Lua name; ScriptContractTest holds the two lists to one order).
     */
    public enum Argument {
        NOW, MAX_ACTIVE, SESSION_TTL, STRATEGY, IDLE_TTL, OPENS_AT, CLOSES_AT, MAX_ADMIT_PER_MINUTE, ABANDON_AFTER,
        ARRIVAL_TTL, DRAW_SEED, SEED_COMMITMENT, CONFIGURED, UNITS_PER_SHOPPER, STOCK
    }

    /** Each user's arguments, in the order join.lua's {@code USER_ARGUMENTS} names them. */
    public enum UserArgument {
        USER, CLAIM, INVITE, MARK, MARK_TTL, RECLAIM, TERMS, BUCKET
    }

    /** A solved challenge's mark, as join.lua keys it. Compiled once: every paid join is checked. */
    private static final Pattern MARK = Pattern.compile("[0-9a-f]{1,64}");

    public JoinScript(ScriptRunner runner) {
        super(runner, "join.lua");
    }

    /**
     * One user's part of a call.
     *
     * @param claim when the request would complete the session, the id of its completion claim (an
     *              active user must take it: {@link Placement.State#COMPLETING} when another
     *              request holds it); else {@code null}
     * @param invite what the user brings towards the product's invitations, for a new place
     * @param challengeMark when the join paid a proof of work, the solved challenge's mark, taken
     *                      once in Redis ({@link Placement.State#CHALLENGE_USED} when it was
     *                      taken before); else {@code null}
     * @param markTtl how long the mark is kept; {@code null} without a mark
     * @param reclaim what the user's wait token proves that Redis may have lost after a loss,
     *                brought back first ({@link Reclaim}); {@code null} for nothing
     * @param terms what the request cannot do if it would make a new place
     */
    public record Joiner(String userId, String claim, Invite invite, String challengeMark, Duration markTtl,
            Reclaim reclaim, Terms terms) {

        public Joiner {
            if (terms == null) {
                terms = Terms.NONE;
            }
            if (claim != null && (claim.isEmpty() || claim.indexOf(':') >= 0)) {
                throw new IllegalArgumentException("a claim id is a non-empty string without ':'");
            }
            if (invite == null) {
                invite = Invite.NONE;
            }
            if (challengeMark != null && (!MARK.matcher(challengeMark).matches() || markTtl == null
                    || markTtl.toMillis() < 1)) {
                throw new IllegalArgumentException("a challenge mark is hex with a positive ttl");
            }
        }

        /** A user for whom invitations, proofs of work and losses play no part. */
        public Joiner(String userId, String claim) {
            this(userId, claim, Invite.NONE, null, null, null, Terms.NONE);
        }

        /** A user who brings this towards the product's invitations and paid no proof of work. */
        public Joiner(String userId, String claim, Invite invite) {
            this(userId, claim, invite, null, null, null, Terms.NONE);
        }

        /** A join that paid a proof of work, for a product without invitations. */
        public Joiner(String userId, String claim, String challengeMark, Duration markTtl) {
            this(userId, claim, Invite.NONE, challengeMark, markTtl, null, Terms.NONE);
        }

        /** A user who brings what a token signed before a loss proves, and nothing else. */
        public static Joiner reclaiming(String userId, Reclaim reclaim) {
            return new Joiner(userId, null, Invite.NONE, null, null, reclaim, Terms.NONE);
        }

        /** This joiner under other terms for a new place. */
        public Joiner under(Terms other) {
            return new Joiner(userId, claim, invite, challengeMark, markTtl, reclaim, other);
        }
    }

    /**
     * What a request cannot do if it would make a new place (a user who holds a place or a session
     * keeps it whatever these say).
     *
     * @param completing it is a completing request ({@code complete-on}) of a token holder: a
     *                   completion never makes a place ({@link Placement.State#SESSION_ENDED})
     * @param unpaid the product asks a proof of work for a new place and the request brought none
     *               ({@link Placement.State#CHALLENGE_REQUIRED})
     * @param limited the caller is past its join limit ({@link Placement.State#JOIN_LIMITED})
     */
    public record Terms(boolean completing, boolean unpaid, boolean limited) {

        /** A request that may make a place. */
        public static final Terms NONE = new Terms(false, false, false);

        /** As join.lua reads them: a letter each. */
        String argument() {
            return (completing ? "c" : "") + (unpaid ? "p" : "") + (limited ? "l" : "");
        }
    }

    /**
     * What a user brings towards the product's invitations, which matter only when the call would
     * give them a new place (a user in line or admitted keeps theirs whatever they bring).
     *
     * @param id the invitation's {@code jti}; {@code null} when the user brings no valid invitation
     * @param uses how many places the invitation may make for the product
     * @param expiresAt the invitation's {@code exp} (epoch ms): its count in Redis ends a minute later
     * @param invitedLine whether the place is taken in the invited line ({@code invites: priority})
     *                    rather than the main one
     * @param required whether a new place needs a valid invitation and the user brings none:
     *                 {@link Placement.State#INVITE_REQUIRED} instead of a place
     */
    public record Invite(String id, long uses, long expiresAt, boolean invitedLine, boolean required) {

        /** Nothing needed, nothing brought. */
        public static final Invite NONE = new Invite(null, 0, 0, false, false);

        /** A new place needs an invitation, and the user brings none that is valid. */
        public static final Invite REQUIRED = new Invite(null, 0, 0, false, true);

        public Invite {
            if (id != null && (id.isEmpty() || id.chars().anyMatch(c -> c <= ' ' || c > '~') || uses < 1)) {
                throw new IllegalArgumentException("an invitation id is visible ASCII without spaces, and its uses at least 1");
            }
        }

        /** A valid invitation the gateway checked. */
        public static Invite of(String id, long uses, long expiresAt, boolean invitedLine) {
            return new Invite(id, uses, expiresAt, invitedLine, false);
        }

        /** As join.lua reads it. */
        String argument() {
            if (id != null) {
                return uses + " " + expiresAt + " " + (invitedLine ? "invited" : "main") + " " + id;
            }
            return required ? "required" : "";
        }
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
     * One user's outcome.
     *
     * @param enqueued whether this call put the user at the back of the line (a new join, not a poll)
     * @param ticket the user's ticket while in line (negative in the invited line of
     *               {@code invites: priority}), else {@code null}
     * @param seedCommitment the commitment to the seed of the product's last pre-queue draw, or
     *                       {@code null} when it has none
     * @param sessionEnd when the user's session ends (epoch ms) while active, else {@code null}
     * @param stock what the product has left to sell, {@code null} while unknown
     */
    public record Joined(Placement placement, boolean enqueued, Long ticket, String seedCommitment, Long sessionEnd,
            Stock stock) {

        /** An outcome without a session (waiting, or refused), of a product whose stock is unknown. */
        public Joined(Placement placement, boolean enqueued, Long ticket, String seedCommitment) {
            this(placement, enqueued, ticket, seedCommitment, null, null);
        }

        /** An outcome of a product whose stock is unknown. */
        public Joined(Placement placement, boolean enqueued, Long ticket, String seedCommitment, Long sessionEnd) {
            this(placement, enqueued, ticket, seedCommitment, sessionEnd, null);
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
     * The script's ARGV after the product id, in the one order join.lua reads: for callers that
     * must send the script raw (the benchmarks pipeline it), so they never spell the order twice.
     */
    public static String[] arguments(Args args) {
        ProductRules rules = args.rules();
        Map<Argument, String> call = new EnumMap<>(Argument.class);
        call.put(Argument.NOW, Long.toString(args.now()));
        call.put(Argument.MAX_ACTIVE, Integer.toString(rules.maxActive()));
        call.put(Argument.SESSION_TTL, Long.toString(rules.sessionTtl().toMillis()));
        call.put(Argument.STRATEGY, rules.strategy());
        call.put(Argument.IDLE_TTL, Long.toString(args.idle().toMillis()));
        call.put(Argument.OPENS_AT, rules.opensAt() == null ? "" : Long.toString(rules.opensAt().toEpochMilli()));
        call.put(Argument.CLOSES_AT, rules.closesAt() == null ? "" : Long.toString(rules.closesAt().toEpochMilli()));
        call.put(Argument.MAX_ADMIT_PER_MINUTE, Integer.toString(rules.maxAdmitPerMinute()));
        call.put(Argument.ABANDON_AFTER, Long.toString(rules.abandonAfter().toMillis()));
        call.put(Argument.ARRIVAL_TTL, Long.toString(rules.arrivalTtl().toMillis()));
        call.put(Argument.DRAW_SEED, args.drawSeed() == null ? "" : args.drawSeed().seed());
        call.put(Argument.SEED_COMMITMENT, args.drawSeed() == null ? "" : args.drawSeed().commitment());
        call.put(Argument.CONFIGURED, args.configured() ? "1" : "");
        call.put(Argument.UNITS_PER_SHOPPER, Integer.toString(rules.unitsPerShopper()));
        call.put(Argument.STOCK, rules.stock() == null ? "" : Long.toString(rules.stock()));
        List<String> argv = new ArrayList<>(call.size() + UserArgument.values().length * args.joiners().size());
        addAll(argv, call, Argument.class);
        for (Joiner joiner : args.joiners()) {
            Map<UserArgument, String> user = new EnumMap<>(UserArgument.class);
            user.put(UserArgument.USER, joiner.userId());
            user.put(UserArgument.CLAIM, joiner.claim() == null ? "" : joiner.claim());
            user.put(UserArgument.INVITE, joiner.invite().argument());
            user.put(UserArgument.MARK, joiner.challengeMark() == null ? "" : joiner.challengeMark());
            user.put(UserArgument.MARK_TTL,
                    joiner.challengeMark() == null ? "" : Long.toString(joiner.markTtl().toMillis()));
            user.put(UserArgument.RECLAIM, Reclaim.argument(joiner.reclaim()));
            user.put(UserArgument.TERMS, joiner.terms().argument());
            user.put(UserArgument.BUCKET, Integer.toString(QueueKeys.bucketOf(joiner.userId())));
            addAll(argv, user, UserArgument.class);
        }
        return argv.toArray(String[]::new);
    }

    /** The values in the enum's order, which is the script's; every argument must be given. */
    private static <A extends Enum<A>> void addAll(List<String> argv, Map<A, String> values, Class<A> names) {
        if (values.size() != names.getEnumConstants().length) {
            throw new IllegalStateException("join.lua takes every " + names.getSimpleName() + ", given only "
                    + values.keySet());
        }
        argv.addAll(values.values());
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
