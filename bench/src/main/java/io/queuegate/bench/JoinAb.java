package io.queuegate.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.room.Joiner;
import io.queuegate.store.LuaScript;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.RedisProcess;

/**
 * join.lua at a baseline git revision against the one on the classpath (the working tree's, as
 * {@code bench/run} builds it), both loaded into one Redis, each on a product of its own with the
 * same line: what a new user costs Redis in each, measured in interleaved rounds so that the
 * shared machine's drift falls on both alike. Single runs of {@code bench/run scripts} vary by
 * tens of per cent from run to run; a ratio of medians taken side by side does not.
 *
 * <p>Run by {@code bench/run join-ab [baseline-rev] [rounds] [waiting]}; prints its report and
 * writes it to the given file.
 */
public final class JoinAb {

    static final int DEFAULT_ROUNDS = 8;
    static final int DEFAULT_WAITING = 200_000;
    /** Users per call: the group commit's largest batch, a storm's typical one. */
    static final int GROUP = 64;
    /** Calls a revision makes a round: long enough (about half a second of Redis) that one stall does not decide it. */
    static final int CALLS = 600;
    /** Calls sent before the replies are awaited: enough to keep Redis busy, few enough to check each. */
    private static final int BATCH = 50;
    /**
     * The script's clock moves this many users a millisecond, so a whole run spans seconds of it: no
     * waiting user reaches abandon-after and no session ends, and both lines stay as loaded but for
     * their new users (in real time, the line loaded first would start to be swept first).
     */
    private static final int USERS_PER_MS = 100;
    private static final Duration MARK_TTL = Duration.ofMillis(150_000);
    private static final Pattern CALL_NAMES = Pattern.compile("(?m)^local\\s+ARGUMENTS\\s*=\\s*\\{([^}]*)\\}");
    private static final Pattern USER_NAMES = Pattern.compile("(?m)^local\\s+USER_ARGUMENTS\\s*=\\s*\\{([^}]*)\\}");
    private static final Pattern NAME = Pattern.compile("'([^']*)'");
    private static final Pattern EVALSHA_USEC = Pattern.compile("(?m)^cmdstat_evalsha:.*?\\busec=(\\d+)");

    /** The two shapes of a storm measured: the bench's drop set of rules, without and with a proof of work. */
    enum Shape {
        DROP("the drop set, 64 new users a call, no mark"),
        DROP_POW("the drop set, 64 new users a call, each with a proof-of-work mark");

        final String label;

        Shape(String label) {
            this.label = label;
        }
    }

    /** One revision of join.lua as loaded into the Redis: its product, its SHA1 and how its ARGV is made. */
    record Revision(String name, String product, String tag, String sha, ArgvMap argv) {
    }

    /** Per user, Redis-side: {@code cmdstat_evalsha} usec and main-thread CPU µs. */
    record Sample(double evalsha, double cpu) {
    }

    private final RedisCommands<String, String> sync;
    /** Pipelines the calls; INFO goes through {@link #sync}, a connection of its own. */
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> async;
    private final RedisCpu cpu;
    private final long start = System.currentTimeMillis();
    private final ProductRules rules = new ProductRules(100, Duration.ofMinutes(10), "pubsub",
            Instant.ofEpochMilli(start - 3_600_000), Instant.ofEpochMilli(start + 3_600_000), 600,
            Duration.ofSeconds(60), Duration.ofSeconds(60));
    private long joined;

    JoinAb(RedisClient client) {
        this.sync = client.connect().sync();
        this.connection = client.connect();
        this.async = connection.async();
        this.cpu = new RedisCpu(sync);
    }

    /** {@code out command [baseline-rev] [rounds] [waiting]}; an empty baseline takes the default. */
    public static void main(String[] args) {
        Throughput.exit(() -> run(args));
    }

    /**
     * Measures; whether the report was written (false: the machine was not quiet enough). Returns
     * rather than exits, so the Redis it started is stopped either way.
     */
    private static boolean run(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        String command = args[1].strip();
        String asked = args.length > 2 ? args[2].trim() : "";
        int rounds = args.length > 3 && !args[3].isBlank() ? Integer.parseInt(args[3].trim()) : DEFAULT_ROUNDS;
        int asWaiting = args.length > 4 && !args[4].isBlank() ? Integer.parseInt(args[4].trim()) : DEFAULT_WAITING;
        if (rounds < 1 || asWaiting < GROUP) {
            throw new IllegalArgumentException("rounds must be at least 1 and waiting at least " + GROUP);
        }
        // The line is loaded in whole calls.
        int waiting = asWaiting / GROUP * GROUP;

        LuaScript current = LuaScript.load("join.lua");
        String baselineRev = asked.isEmpty() ? defaultBaseline(current) : asked;
        String baselineCommit = Machine.gitOrFail("rev-parse", "--verify", baselineRev + "^{commit}").trim();
        LuaScript baseline = LuaScript.load("join.lua", file -> Machine.gitOrFail("show", baselineCommit + ":lua/" + file));
        ArgvMap currentArgv = ArgvMap.current(current);
        ArgvMap baselineArgv = ArgvMap.of(baseline, "the baseline's join.lua (" + baselineRev + ")");
        String head = Machine.git("rev-parse", "HEAD");

        String loadBefore = Machine.loadAverage();
        return onOwnRedis(bench -> {
            // Product ids of one length, so neither line's keys are longer than the other's.
            Revision base = bench.revision("baseline " + short7(baselineCommit), "ab-base", "b", baseline,
                    baselineArgv);
            Revision now = bench.revision("current " + short7(head)
                    + (Machine.uncommitted().isEmpty() ? "" : " + working tree"), "ab-curr", "c", current,
                    currentArgv);
            Map<Shape, Map<Revision, List<Sample>>> samples = bench.run(List.of(base, now), rounds, waiting);
            String unquiet = unquiet(samples, base, rounds);
            if (!unquiet.isEmpty()) {
                System.out.println("NOT WRITTEN: " + unquiet + " (the baseline's rounds may spread at most "
                        + Math.round(Rounds.MAX_BASELINE_SPREAD * 100) + " %): run it again on a quieter machine "
                        + "(load average now " + Machine.loadAverage() + ").");
                return false;
            }
            String table = table(samples, base, now);
            String report = report(command, baselineRev, baselineCommit, head, rounds, waiting, loadBefore,
                    Machine.find(bench.sync().info("server"), "redis_version:(\\S+)", "?"), baselineArgv, table);
            System.out.println(report);
            Files.writeString(out, report);
            return true;
        });
    }

    /** What a bench does with its {@link JoinAb}: whether it wrote its report. */
    interface Body {
        boolean run(JoinAb bench) throws Exception;
    }

    /** Runs {@code body} on a Redis of its own, which is stopped afterwards either way. */
    static boolean onOwnRedis(Body body) throws Exception {
        try (RedisProcess redis = RedisProcess.start(List.of("maxmemory 0"))) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
            client.setDefaultTimeout(Duration.ofMinutes(2));
            try {
                return body.run(new JoinAb(client));
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    /** A connection of its own, for INFO and the like. */
    RedisCommands<String, String> sync() {
        return sync;
    }

    Revision revision(String name, String product, String tag, LuaScript script, ArgvMap argv) {
        return new Revision(name, product, tag, sync.scriptLoad(script.source()), argv);
    }

    Map<Shape, Map<Revision, List<Sample>>> run(List<Revision> revisions, int rounds, int waiting) {
        return run(revisions, Set.of(Shape.values()), rounds, waiting);
    }

    /** As {@link #run(List, int, int)}, for the shapes given only. */
    Map<Shape, Map<Revision, List<Sample>>> run(List<Revision> revisions, Set<Shape> shapes, int rounds, int waiting) {
        for (Revision revision : revisions) {
            System.out.printf(Locale.ROOT, "loading %,d waiting for %s%n", waiting, revision.name());
            int calls = waiting / GROUP;
            for (int from = 0; from < calls; from += BATCH * 20) {
                measure(revision, Math.min(BATCH * 20, calls - from), false);
            }
        }
        Map<Shape, Map<Revision, List<Sample>>> samples = new EnumMap<>(Shape.class);
        for (Shape shape : shapes) {
            samples.put(shape, new LinkedHashMap<>());
            revisions.forEach(revision -> samples.get(shape).put(revision, new ArrayList<>()));
        }
        for (int round = 0; round < rounds; round++) {
            List<Revision> order = new ArrayList<>(revisions);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (Shape shape : samples.keySet()) {
                for (Revision revision : order) {
                    Sample sample = measure(revision, CALLS, shape == Shape.DROP_POW);
                    samples.get(shape).get(revision).add(sample);
                    System.out.printf(Locale.ROOT, "round %d %-8s %-40s evalsha %6.2f µs/user, CPU %6.2f µs/user%n",
                            round + 1, shape, revision.name(), sample.evalsha(), sample.cpu());
                }
            }
        }
        return samples;
    }

    /**
     * Why the run says nothing, or "": the baseline's main-thread CPU (the figure a preempted Redis
     * does not inflate) spread too far in some shape, or too few rounds to tell.
     */
    private static String unquiet(Map<Shape, Map<Revision, List<Sample>>> samples, Revision baseline, int rounds) {
        List<String> unquiet = new ArrayList<>();
        if (rounds < 3) {
            unquiet.add("fewer than 3 rounds, so no spread to judge the machine by");
        }
        for (Shape shape : Shape.values()) {
            double spread = Rounds.spread(cpu(samples.get(shape).get(baseline)));
            if (spread > Rounds.MAX_BASELINE_SPREAD) {
                unquiet.add(String.format(Locale.ROOT, "%s: the baseline's rounds spread %.0f %%", shape.label,
                        spread * 100));
            }
        }
        return String.join("; ", unquiet);
    }

    static double[] evalsha(List<Sample> samples) {
        return samples.stream().mapToDouble(Sample::evalsha).toArray();
    }

    static double[] cpu(List<Sample> samples) {
        return samples.stream().mapToDouble(Sample::cpu).toArray();
    }

    /** Redis's cost per user of {@code calls} calls of {@value #GROUP} new users each, pipelined. */
    private Sample measure(Revision revision, int calls, boolean mark) {
        // Every call's ARGV is made before the counters are read: on two cores the client's work
        // would otherwise take CPU from Redis while it runs, and commandstats counts wall time.
        List<String[]> argvs = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            argvs.add(revision.argv().apply(RawScripts.join(args(revision, mark))));
        }
        String[] keys = QueueKeys.of(revision.product()).forScripts().toArray(String[]::new);
        long usecBefore = evalshaUsec();
        double cpuBefore = cpu.seconds();
        connection.setAutoFlushCommands(false);
        try {
            List<RedisFuture<List<Object>>> futures = new ArrayList<>(BATCH);
            for (String[] argv : argvs) {
                futures.add(async.evalsha(revision.sha(), ScriptOutputType.MULTI, keys, argv));
                if (futures.size() == BATCH) {
                    flush(revision, futures);
                }
            }
            flush(revision, futures);
        }
        finally {
            connection.setAutoFlushCommands(true);
        }
        double cpuAfter = cpu.seconds();
        long usecAfter = evalshaUsec();
        double users = (double) calls * GROUP;
        return new Sample((usecAfter - usecBefore) / users, (cpuAfter - cpuBefore) * 1e6 / users);
    }

    private JoinScript.Args args(Revision revision, boolean mark) {
        List<Joiner> joiners = new ArrayList<>(GROUP);
        for (int i = 0; i < GROUP; i++) {
            joined++;
            // One user id format for both revisions (the same length), and a count shared by both,
            // so the clock below moves alike for both lines.
            String user = String.format(Locale.ROOT, "user-%s-%09d", revision.tag(), joined);
            joiners.add(mark ? new Joiner(user, null, mark(), MARK_TTL) : new Joiner(user, null));
        }
        return new JoinScript.Args(revision.product(), start + joined / USERS_PER_MS, rules, Duration.ofHours(2), null,
                joiners, true);
    }

    /** A mark as the gateway makes one: 32 hex characters of a solved challenge's hash. */
    private static String mark() {
        byte[] bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private void flush(Revision revision, List<RedisFuture<List<Object>>> futures) {
        connection.flushCommands();
        if (!LettuceFutures.awaitAll(2, TimeUnit.MINUTES, futures.toArray(new RedisFuture[0]))) {
            throw new IllegalStateException("a pipelined batch timed out");
        }
        for (RedisFuture<List<Object>> future : futures) {
            if (future.getError() != null) {
                throw new IllegalStateException(revision.name() + ": join.lua failed: " + future.getError());
            }
            check(revision, future.toCompletableFuture().getNow(null));
        }
        futures.clear();
    }

    /**
     * Every user of a call must have got a new place: a revision that refused them (a bad argument,
     * a used mark) would be measured doing less than the other.
     */
    private static void check(Revision revision, List<Object> reply) {
        int at = reply.indexOf("users");
        if (at < 0 || at + 1 >= reply.size() || !(reply.get(at + 1) instanceof List<?> users)) {
            throw new IllegalStateException(revision.name() + ": join.lua answered without its users: " + reply);
        }
        for (Object entry : users) {
            List<?> user = (List<?>) entry;
            String state = String.valueOf(user.get(0));
            if (!(state.equals("waiting") || state.equals("active")) || !Long.valueOf(1).equals(user.get(2))) {
                throw new IllegalStateException(revision.name() + ": a new user did not get a place: " + user);
            }
        }
    }

    private long evalshaUsec() {
        Matcher m = EVALSHA_USEC.matcher(sync.info("commandstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private static String table(Map<Shape, Map<Revision, List<Sample>>> samples, Revision baseline, Revision current) {
        StringBuilder table = new StringBuilder(
                "| shape | revision | evalsha µs/user median | min | max | main-thread CPU µs/user median | min | max "
                        + "| evalsha µs/user, every round |\n|---|---|---|---|---|---|---|---|---|\n");
        StringBuilder ratios = new StringBuilder();
        for (Shape shape : Shape.values()) {
            for (Revision revision : List.of(baseline, current)) {
                double[] evalsha = evalsha(samples.get(shape).get(revision));
                double[] cpu = cpu(samples.get(shape).get(revision));
                table.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |%n",
                        shape.label, revision.name(), Rounds.median(evalsha), min(evalsha), max(evalsha),
                        Rounds.median(cpu), min(cpu), max(cpu), Arrays.stream(evalsha)
                                .mapToObj(x -> String.format(Locale.ROOT, "%.2f", x)).collect(Collectors.joining(" "))));
            }
            ratios.append(String.format(Locale.ROOT, "- %s: current/baseline %.3f (evalsha), %.3f (main-thread CPU)%n",
                    shape.label,
                    Rounds.median(evalsha(samples.get(shape).get(current)))
                            / Rounds.median(evalsha(samples.get(shape).get(baseline))),
                    Rounds.median(cpu(samples.get(shape).get(current)))
                            / Rounds.median(cpu(samples.get(shape).get(baseline)))));
        }
        return table + "\nRatio of the medians:\n\n" + ratios;
    }

    private static String report(String command, String baselineRev, String baselineCommit, String head, int rounds,
            int waiting, String loadBefore, String redisVersion, ArgvMap baselineArgv, String table) {
        String dropped = baselineArgv.unused().isEmpty() ? "none"
                : baselineArgv.unused().stream().map(name -> "`" + name + "`").collect(Collectors.joining(", "));
        return "# join.lua A/B: Redis's cost per new user, two revisions side by side\n\n"
                + "Measured by `" + command + "` on " + Instant.now() + ": baseline `" + baselineCommit + "` (asked as `"
                + baselineRev + "`) against current `" + head + "`" + Machine.uncommitted() + ".\n\n"
                + "Machine: " + Machine.describe() + "; Redis " + redisVersion + ". Load average " + loadBefore
                + " at start, " + Machine.loadAverage() + " at the end.\n\n"
                + "Method: both revisions of join.lua (the baseline assembled from `git show <rev>:lua/<file>` by "
                + "LuaScript's include rule, the current one from the classpath) are loaded into one Redis, each "
                + "serving a product of its own, and each product's line is first loaded with "
                + String.format(Locale.ROOT, "%,d", waiting) + " waiting users through its own script, in calls of "
                + GROUP + ". Then " + rounds + " rounds; in each, for each shape, each revision makes " + CALLS
                + " pipelined calls of " + GROUP + " new users, the revision that goes first alternating from round "
                + "to round, so a slower or busier stretch of the shared machine falls on both. The rules are "
                + "the bench's drop set: opens-at an hour ago, closes-at in an hour, max-admit-per-minute 600, "
                + "abandon-after 60 s (max-active 100, sessions of 10 minutes, arrival 60 s, a configured product); "
                + "a proof-of-work mark is 32 random hex characters kept 150 s. The scripts' clock moves 1 ms "
                + "per " + USERS_PER_MS + " users joined, so nobody waits long enough to be dropped and no session "
                + "ends during the run: each call does the same work in both lines. A round's figure is the "
                + "growth of Redis's `cmdstat_evalsha` usec (the time Redis spent inside the calls, "
                + "wall-clock, so a preempted Redis counts it) and of its main-thread CPU (`INFO cpu`, user + sys, "
                + "which includes reading and answering the calls), divided by the users joined. The ARGV of both "
                + "comes from `JoinScript.arguments`; the baseline's is the same values picked by the names its "
                + "`ARGUMENTS` and `USER_ARGUMENTS` list (arguments it does not take: " + dropped + "). Every reply is "
                + "checked: each user got a new place. A run is written only when the baseline's main-thread CPU "
                + "rounds spread at most " + Math.round(Rounds.MAX_BASELINE_SPREAD * 100) + " % ((max − min) ÷ "
                + "median) in every shape. Read the ratio of the medians; single figures move with the machine.\n\n"
                + table;
    }

    /**
     * The files join.lua is assembled from as they were before their latest change: HEAD when the
     * working tree changes one of them, else the first parent of the last commit that did.
     */
    private static String defaultBaseline(LuaScript current) {
        // Each line of the assembled text ends in a newline and has an origin.
        long lines = current.source().chars().filter(c -> c == '\n').count();
        Set<String> files = new LinkedHashSet<>();
        for (int line = 1; line <= lines; line++) {
            String origin = current.origin(line);
            files.add("lua/" + origin.substring(0, origin.lastIndexOf(':')));
        }
        List<String> status = new ArrayList<>(List.of("status", "--porcelain", "--untracked-files=no", "--"));
        status.addAll(files);
        if (!Machine.gitOrFail(status.toArray(String[]::new)).isBlank()) {
            return "HEAD";
        }
        List<String> log = new ArrayList<>(List.of("log", "-1", "--format=%H", "--"));
        log.addAll(files);
        String last = Machine.gitOrFail(log.toArray(String[]::new)).trim();
        if (last.isEmpty()) {
            throw new IllegalStateException("no commit changed " + files + ": give a baseline revision");
        }
        return last + "^";
    }

    /**
     * How a revision's ARGV is made from the current adapter's: the product id and epoch, then the
     * call's and each user's values picked by name, so an argument added since is left out and none
     * is ever placed by position. A revision that takes the rules and the call's arguments by name
     * (no {@code ARGUMENTS} list) is given them as they are; an older one, which listed every call
     * argument in {@code ARGUMENTS} with the rules among them ({@code max_active}, ..., and the
     * promotion as {@code strategy}), gets each by the name it lists.
     *
     * @param call the older revision's call argument names in its order; {@code null} for a revision
     *             that takes them by name
     */
    record ArgvMap(List<String> call, int[] user, List<String> unused) {

        private static final List<String> USER = Arrays.stream(JoinScript.UserArgument.values())
                .map(a -> a.name().toLowerCase(Locale.ROOT)).toList();

        /** The classpath's join.lua, which must take what the adapter makes (ScriptContractTest holds it so). */
        static ArgvMap current(LuaScript script) {
            ArgvMap map = of(script, "the current join.lua");
            if (map.call() != null || !map.unused().isEmpty() || map.user().length != USER.size()) {
                throw new IllegalStateException("the current join.lua's arguments differ from JoinScript's: "
                        + "build the gateway again (ScriptContractTest holds them to one order)");
            }
            return map;
        }

        static ArgvMap of(LuaScript script, String which) {
            List<String> userNames = names(script, USER_NAMES, "USER_ARGUMENTS", which);
            int[] user = indexes(userNames, USER, which);
            List<String> unused = new ArrayList<>();
            USER.stream().filter(name -> !userNames.contains(name)).forEach(unused::add);
            List<String> call = CALL_NAMES.matcher(script.source()).find()
                    ? names(script, CALL_NAMES, "ARGUMENTS", which) : null;
            return new ArgvMap(call, user, List.copyOf(unused));
        }

        private static List<String> names(LuaScript script, Pattern list, String listName, String which) {
            Matcher m = list.matcher(script.source());
            if (!m.find()) {
                throw new IllegalStateException(which + " has no `local " + listName + " = { ... }` list: join.lua "
                        + "names its arguments from commit e252699 on, and this bench maps arguments by name only");
            }
            List<String> names = new ArrayList<>();
            Matcher name = NAME.matcher(m.group(1));
            while (name.find()) {
                names.add(name.group(1));
            }
            return names;
        }

        private static int[] indexes(List<String> names, List<String> known, String which) {
            int[] at = new int[names.size()];
            for (int i = 0; i < names.size(); i++) {
                at[i] = known.indexOf(names.get(i));
                if (at[i] < 0) {
                    throw new IllegalStateException(which + " takes the argument '" + names.get(i)
                            + "', which JoinScript.arguments does not make: it cannot be called with this adapter's "
                            + "values");
                }
            }
            return at;
        }

        /** This revision's ARGV from the current adapter's (product id, epoch, rules, call, users). */
        String[] apply(String[] argv) {
            int head = 2;
            int rules = Integer.parseInt(argv[head]);
            int named = Integer.parseInt(argv[head + 1 + rules]);
            int first = head + 1 + rules + 1 + named;
            List<String> out = new ArrayList<>(List.of(argv).subList(0, head));
            if (call == null) {
                out.addAll(List.of(argv).subList(head, first));
            }
            else {
                Map<String, String> byName = new HashMap<>();
                for (int i = head + 1; i < head + 1 + rules; i += 2) {
                    String name = argv[i].replace('-', '_');
                    byName.put(name.equals("promotion") ? "strategy" : name, argv[i + 1]);
                }
                for (int i = head + 2 + rules; i < first; i += 2) {
                    byName.put(argv[i], argv[i + 1]);
                }
                for (String name : call) {
                    if (!byName.containsKey(name)) {
                        throw new IllegalStateException("the baseline's join.lua takes the argument '" + name
                                + "', which JoinScript.arguments does not make");
                    }
                    out.add(byName.get(name));
                }
            }
            for (int from = first; from < argv.length; from += USER.size()) {
                for (int i : user) {
                    out.add(argv[from + i]);
                }
            }
            return out.toArray(String[]::new);
        }
    }

    private static String short7(String commit) {
        return commit.length() > 7 ? commit.substring(0, 7) : commit;
    }

    static double min(double[] xs) {
        return Arrays.stream(xs).min().orElse(Double.NaN);
    }

    static double max(double[] xs) {
        return Arrays.stream(xs).max().orElse(Double.NaN);
    }
}
