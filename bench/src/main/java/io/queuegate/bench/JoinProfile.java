package io.queuegate.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

import io.queuegate.bench.JoinAb.Revision;
import io.queuegate.bench.JoinAb.Sample;
import io.queuegate.bench.JoinAb.Shape;
import io.queuegate.store.LuaScript;

/**
 * Where a storm's new user's Redis time goes inside join.lua. The Redis binary's symbols are
 * stripped and its Lua runs in one interpreter loop, so no sampling profiler can split a script's
 * time: this takes it apart by subtraction instead. The working tree's join.lua is loaded as it
 * is and in three cut-down variants, each of which gives a call's users their places with less of
 * the work (everything around the per-user decisions stays: the call's arguments, the settings,
 * the rules, the one session look-up, the shared writes, the reply), and all four are measured
 * side by side in interleaved rounds, as {@link JoinAb} measures two revisions. The differences
 * between neighbours are what each layer costs a user.
 *
 * <p>Run by {@code bench/run join-profile [rounds] [waiting]}; prints its report and writes it to
 * the given file. Only the drop set without a proof of work: the variants do not take marks.
 */
public final class JoinProfile {

    /** The per-user loop of join.lua the variants replace; a variant fails loudly when it is gone. */
    static final String DECIDE_LOOP = "for i = #ARGUMENTS + 2, #ARGV, PER_USER do\n    local user = decide(";

    /** One variant: what it keeps, and the per-user loop that stands in for the decisions. */
    private record Variant(String product, String tag, String label, String loop) {

        String source(String join) {
            if (loop == null) {
                return join;
            }
            int at = join.indexOf(DECIDE_LOOP);
            if (at < 0 || join.indexOf(DECIDE_LOOP, at + 1) >= 0) {
                throw new IllegalStateException("join.lua's per-user loop is no longer `" + DECIDE_LOOP
                        + "...` (once): update JoinProfile's variants to the script");
            }
            // The original loop stays, starting past the last argument, so it never runs.
            return join.substring(0, at) + loop + DECIDE_LOOP.replace("#ARGUMENTS + 2,", "#ARGV + 2,")
                    + join.substring(at + DECIDE_LOOP.length());
        }
    }

    private static final List<Variant> VARIANTS = List.of(
            new Variant("pf-full", "f", "join.lua as it is", null),
            new Variant("pf-cmds", "c", "each user's own commands only: the bucket entry (HSETNX) and its expiry "
                    + "(PEXPIRE), the ticket taken, the answer", """
                    for i = #ARGUMENTS + 2, #ARGV, PER_USER do
                        local uid = ARGV[i]
                        local ticket = reserve_ticket(k, uid)
                        take_reserved(k, uid, ticket)
                        redis.call('PEXPIRE', bucket_of(k, uid), call.idle_ttl)
                        users[#users + 1] = { STATE.WAITING, 1, 1, ticket, 0 }
                    end
                    """),
            new Variant("pf-book", "b", "no command of a user's own: the bucket's key name made, the ticket and its "
                    + "page entry taken, the answer", """
                    for i = #ARGUMENTS + 2, #ARGV, PER_USER do
                        local uid = ARGV[i]
                        bucket_of(k, uid)
                        users[#users + 1] = { STATE.WAITING, 1, 1, take_next_ticket(k, uid), 0 }
                    end
                    """),
            new Variant("pf-call", "r", "the call alone: each user only counted and answered", """
                    local pending = pending_of(k)
                    for i = #ARGUMENTS + 2, #ARGV, PER_USER do
                        pending.last = pending.last + 1
                        users[#users + 1] = { STATE.WAITING, 1, 1, pending.last, 0 }
                    end
                    pending.dirty = true
                    """));

    /**
     * Rounds run first and not counted: the full script's first rounds after loading the lines ran
     * half as slow again as its later ones, while the variant that makes no command did not.
     */
    private static final int WARM_UP = 2;

    private JoinProfile() {
    }

    /** {@code out command [rounds] [waiting]}. */
    public static void main(String[] args) {
        Throughput.exit(() -> run(args));
    }

    private static boolean run(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        String command = args[1].strip();
        int rounds = args.length > 2 && !args[2].isBlank() ? Integer.parseInt(args[2].trim()) : JoinAb.DEFAULT_ROUNDS;
        int asWaiting = args.length > 3 && !args[3].isBlank() ? Integer.parseInt(args[3].trim())
                : JoinAb.DEFAULT_WAITING;
        int waiting = asWaiting / JoinAb.GROUP * JoinAb.GROUP;
        String head = Machine.git("rev-parse", "HEAD");
        String loadBefore = Machine.loadAverage();
        return JoinAb.onOwnRedis(bench -> {
            List<Revision> revisions = new ArrayList<>();
            for (Variant variant : VARIANTS) {
                LuaScript script = LuaScript.load("join.lua", file -> file.equals("join.lua")
                        ? variant.source(read(file)) : read(file));
                revisions.add(bench.revision(variant.label(), variant.product(), variant.tag(), script,
                        JoinAb.ArgvMap.current(script)));
            }
            Map<Shape, Map<Revision, List<Sample>>> samples = bench.run(revisions, Set.of(Shape.DROP),
                    WARM_UP + rounds, waiting);
            Map<Revision, List<Sample>> drop = new LinkedHashMap<>();
            samples.get(Shape.DROP).forEach((revision, all) -> drop.put(revision, all.subList(WARM_UP, all.size())));
            double spread = Rounds.spread(JoinAb.cpu(drop.get(revisions.get(0))));
            if (rounds < 3 || spread > Rounds.MAX_BASELINE_SPREAD) {
                System.out.printf(Locale.ROOT, "NOT WRITTEN: %s (load average now %s)%n", rounds < 3
                        ? "fewer than 3 rounds" : String.format(Locale.ROOT, "join.lua's own rounds spread %.0f %%, "
                                + "more than %.0f %%: run it again on a quieter machine", spread * 100,
                                Rounds.MAX_BASELINE_SPREAD * 100), Machine.loadAverage());
                return false;
            }
            String report = report(command, head, rounds, waiting, loadBefore,
                    Machine.find(bench.sync().info("server"), "redis_version:(\\S+)", "?"), revisions, drop);
            System.out.println(report);
            Files.writeString(out, report);
            return true;
        });
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of("lua", file));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String report(String command, String head, int rounds, int waiting, String loadBefore,
            String redisVersion, List<Revision> revisions, Map<Revision, List<Sample>> drop) {
        StringBuilder table = new StringBuilder("| variant | main-thread CPU µs/user, median | min | max | spread "
                + "| evalsha µs/user, median | what this layer adds a user (CPU) |\n|---|---|---|---|---|---|---|\n");
        UnaryOperator<String> cell = s -> s.replace("|", "\\|");
        for (int i = 0; i < revisions.size(); i++) {
            Revision revision = revisions.get(i);
            double[] cpu = JoinAb.cpu(drop.get(revision));
            double median = Rounds.median(cpu);
            String adds = i + 1 < revisions.size()
                    ? String.format(Locale.ROOT, "%.2f µs over the next row", median
                            - Rounds.median(JoinAb.cpu(drop.get(revisions.get(i + 1)))))
                    : String.format(Locale.ROOT, "%.2f µs (all of it)", median);
            table.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.0f %% | %.2f | %s |%n",
                    cell.apply(revision.name()), median, JoinAb.min(cpu), JoinAb.max(cpu), Rounds.spread(cpu) * 100,
                    Rounds.median(JoinAb.evalsha(drop.get(revision))), adds));
        }
        return "# join.lua taken apart: where a storm's new user's Redis time goes\n\n"
                + "Measured by `" + command + "` on " + Instant.now() + ", commit `" + head + "`"
                + Machine.uncommitted() + ".\n\n"
                + "Machine: " + Machine.describe() + "; Redis " + redisVersion + ". Load average " + loadBefore
                + " at start, " + Machine.loadAverage() + " at the end.\n\n"
                + "Method: the working tree's join.lua and three variants of it, each replacing the per-user "
                + "decisions with less work (everything around them stays: the call's arguments, the settings "
                + "and rules, the one session look-up of the call's users, the shared writes of the ticket "
                + "counter, the pages and the seen marks, the reply), are loaded into one Redis, each serving a "
                + "product of its own whose line is first loaded with " + String.format(Locale.ROOT, "%,d", waiting)
                + " waiting users through that variant. Then " + WARM_UP + " rounds not counted and " + rounds
                + " rounds counted; in each, each variant makes "
                + JoinAb.CALLS + " pipelined calls of " + JoinAb.GROUP + " new users, the order alternating from "
                + "round to round (`JoinAb`'s method, the drop set of rules, no proof of work). A row's "
                + "figure less the next row's is what that layer costs a user. Written only when join.lua's own "
                + "rounds spread at most " + Math.round(Rounds.MAX_BASELINE_SPREAD * 100) + " %.\n\n" + table;
    }
}
