package io.queuegate.store.script;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.queuegate.store.ProductRules;
import io.queuegate.room.RoomMode;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/**
 * {@code recover.lua}: merges what one gateway instance remembers of a product into what Redis
 * still holds of it after a loss, and stamps it with the current epoch. Its arguments go by name.
 */
public final class RecoverScript extends ProductScript {

    public RecoverScript(ScriptRunner runner) {
        super(runner, "recover.lua");
    }

    /**
     * One line as an instance last read it.
     *
     * @param left the positions given up ahead of the head, ascending
     * @param drawFrom the first ticket of its draw, or {@code null}
     * @param drawTo the last ticket of its closed draw, or {@code null}
     */
    public record Line(long head, long last, long[] left, Long drawFrom, Long drawTo) {
    }

    /**
     * What one instance remembers of a product; each part {@code null} (or empty) when unknown.
     *
     * @param main the main line
     * @param invited the invited line ({@code invites: priority})
     * @param margin how many tickets may have been taken since {@code main.last} was read (the
     *               same margin serves the invited line)
     * @param seed the seed of the product's draw, derived again ({@code DrawSeeds})
     * @param commitment its commitment
     * @param opened the opens-at the sale opened at, or {@code null}
     * @param roomReadAt when the room's state below was read (epoch ms), or {@code null} when unknown
     * @param maxOverride the operator's max-active, or {@code null} when unset
     * @param sessions the sessions known to be running
     * @param ended the sessions (and places) heard to end: user id to when (epoch ms)
     */
    public record Knowledge(Line main, Line invited, long margin, String seed, String commitment, Long opened,
            Long roomReadAt, RoomMode mode, boolean draining, Integer maxOverride, List<Session> sessions,
            Map<String, Long> ended) {

        /** Nothing known: the product is only stamped with the epoch, with its rules. */
        public static final Knowledge NONE = new Knowledge(null, null, 0, null, null, null, null, null, false, null,
                List.of(), Map.of());
    }

    /**
     * A session known to be running.
     *
     * @param endsAt its end (epoch ms), 0 when unknown (only its admission was announced)
     * @param admittedAt when its admission was heard of (epoch ms)
     */
    public record Session(String userId, long endsAt, long admittedAt) {
    }

    /**
     * @param until when the window for reclaiming places ends (epoch ms)
     * @param adopt whether no loss is being recovered: then the state is only stamped with the epoch
     * @param rules the route's rules, or {@code null} when the caller has no route at hand
     */
    public record Args(long now, Duration idle, long until, boolean adopt, ProductRules rules, Knowledge known) {
    }

    /**
     * @param recovered whether the call merged what it was given (else it only adopted the state)
     * @param floor the main line's recovery floor: tickets above it were taken after the loss; -1
     *              when adopted
     */
    public record Result(boolean recovered, long floor) {
    }

    public Mono<Result> run(String productId, Args args) {
        return fields(productId, arguments(args).toArray(String[]::new)).map(RecoverScript::result);
    }

    /** recover.lua's arguments: the rules as a join sends them (none without a route), then its own by name. */
    static List<String> arguments(Args args) {
        List<String> named = new ArrayList<>();
        counted(named, args.rules() == null ? List.of() : args.rules().wire());
        put(named, "now", args.now());
        put(named, "idle", args.idle().toMillis());
        put(named, "until", args.until());
        put(named, "adopt", args.adopt() ? "1" : "0");
        Knowledge known = args.known() == null ? Knowledge.NONE : args.known();
        put(named, "margin", known.margin());
        line(named, "", known.main());
        line(named, "invited_", known.invited());
        put(named, "seed", known.seed());
        put(named, "commitment", known.commitment());
        put(named, "opened", known.opened());
        if (known.roomReadAt() != null) {
            put(named, "read_at", known.roomReadAt());
            put(named, "mode", known.mode() == null ? RoomMode.QUEUE.code() : known.mode().code());
            put(named, "draining", known.draining() ? "1" : "0");
            put(named, "max_override", known.maxOverride());
        }
        put(named, "sessions", known.sessions().stream()
                .map(session -> session.userId() + " " + session.endsAt() + " " + session.admittedAt())
                .collect(Collectors.joining(" ")));
        put(named, "ended", pairs(known.ended()));
        return named;
    }

    private static void line(List<String> named, String prefix, Line line) {
        if (line == null) {
            return;
        }
        put(named, prefix + "head", line.head());
        put(named, prefix + "last", line.last());
        put(named, prefix + "left", LongStream.of(line.left()).mapToObj(Long::toString)
                .collect(Collectors.joining(" ")));
        put(named, prefix + "draw_from", line.drawFrom());
        put(named, prefix + "draw_to", line.drawTo());
    }

    private static String pairs(Map<String, Long> sessions) {
        return sessions.entrySet().stream().map(entry -> entry.getKey() + " " + entry.getValue())
                .collect(Collectors.joining(" "));
    }

    private static void put(List<String> named, String name, Object value) {
        if (value != null) {
            named.add(name);
            named.add(String.valueOf(value));
        }
    }

    static Result result(ScriptReply reply) {
        return new Result(reply.flag("recovered"), reply.number("floor"));
    }
}
