package io.queuegate.store;

import java.util.Properties;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Mono;

/**
 * Whether the Redis QueueGate talks to may evict its keys: with a {@code maxmemory} limit and any
 * {@code maxmemory-policy} but {@code noeviction}, Redis removes keys when memory runs out, and
 * every key of QueueGate has an expiry, so the {@code volatile-*} policies can take them as
 * surely as the {@code allkeys-*} ones. A line whose keys are evicted loses places the way an
 * empty restart does, but piecemeal and without a new epoch to tell. Read from {@code INFO memory},
 * which managed Redis services answer where they refuse {@code CONFIG GET}; checked when the
 * gateway first reaches Redis and again for each new epoch (another server), and reported in the
 * health details. A server that does not say is reported so, once.
 */
public final class EvictionCheck {

    private static final Log log = LogFactory.getLog(EvictionCheck.class);

    /** What to do about an unsafe policy, in the words of the warning and the health details. */
    public static final String FIX = "set maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, or "
            + "your Redis service's parameter group), or give QueueGate a Redis of its own without a maxmemory limit";

    /**
     * What the check found.
     *
     * @param policy the server's {@code maxmemory_policy}, or {@code null} when it does not say
     * @param maxMemory its {@code maxmemory} in bytes, 0 for no limit, -1 when it does not say
     */
    public record Verdict(String policy, long maxMemory) {

        /** Whether Redis never evicts: no memory limit, or the {@code noeviction} policy. */
        public boolean safe() {
            return maxMemory == 0 || "noeviction".equals(policy);
        }

        /** Whether the server said what it does. */
        public boolean known() {
            return policy != null && maxMemory >= 0;
        }

        /** The health detail: the policy and whether it is safe. */
        public String describe() {
            if (!known()) {
                return "unknown: INFO memory gives no maxmemory_policy";
            }
            if (safe()) {
                return maxMemory == 0 ? policy + " (no maxmemory: nothing is evicted)" : policy + " (safe)";
            }
            return policy + " with maxmemory " + maxMemory + ": Redis may evict QueueGate's keys, and shoppers lose "
                    + "their places; " + FIX;
        }
    }

    private final ReactiveStringRedisTemplate redis;
    private volatile Verdict last;
    private volatile boolean unknownReported;

    public EvictionCheck(ReactiveStringRedisTemplate redis) {
        this.redis = redis;
    }

    /** Reads the server's policy, warns when it is unsafe, and keeps the verdict for {@link #last()}. */
    public Mono<Verdict> check() {
        return redis.execute(connection -> connection.serverCommands().info("memory")).next()
                .map(EvictionCheck::verdict)
                .doOnNext(verdict -> {
                    Verdict before = last;
                    last = verdict;
                    if (!verdict.known()) {
                        if (!unknownReported) {
                            unknownReported = true;
                            log.info("Redis does not say whether it evicts keys (INFO memory has no maxmemory_policy): "
                                    + "make sure its maxmemory-policy is noeviction, or that it has no maxmemory limit");
                        }
                    }
                    else if (!verdict.safe() && !verdict.equals(before)) {
                        log.warn("Redis's maxmemory-policy is " + verdict.policy() + " with maxmemory "
                                + verdict.maxMemory() + " bytes: when memory runs out Redis evicts keys, QueueGate's "
                                + "included, and shoppers lose their places in line. To fix it, " + FIX
                                + " (docs/operations.md, \"When Redis forgets\")");
                    }
                });
    }

    /** The last verdict, or {@code null} before the first check. */
    public Verdict last() {
        return last;
    }

    /**
     * The verdict of one server's {@code INFO memory}; a cluster answers for each node (each field
     * prefixed with the node), and one node that may evict is enough to say so.
     */
    static Verdict verdict(Properties info) {
        Verdict found = new Verdict(null, -1);
        for (String name : info.stringPropertyNames()) {
            if (name.equals("maxmemory_policy") || name.endsWith(".maxmemory_policy")) {
                String node = name.substring(0, name.length() - "maxmemory_policy".length());
                Verdict verdict = new Verdict(info.getProperty(name).trim(), bytes(info.getProperty(node + "maxmemory")));
                if (!found.known() || found.safe() && !verdict.safe()) {
                    found = verdict;
                }
            }
        }
        return found;
    }

    private static long bytes(String value) {
        try {
            return value == null ? -1 : Long.parseLong(value.trim());
        }
        catch (NumberFormatException ex) {
            return -1;
        }
    }
}
