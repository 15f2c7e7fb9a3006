package io.queuegate.bench;

import java.util.List;

import io.queuegate.store.ScriptRunner;
import io.queuegate.store.script.JoinScript;

/**
 * Arguments for the benchmarks' raw script calls (pipelined through plain Lettuce, for speed):
 * every product script takes the product id, then the epoch of the Redis data it runs in, then
 * its own arguments, as the gateway's adapters send them.
 */
final class RawScripts {

    /** The epoch the benchmarks' calls say they run in: one Redis, never restarted under them. */
    static final String EPOCH = "00000000000000be";

    private RawScripts() {
    }

    /** A product script's ARGV: the product id, the epoch, then {@code args}. */
    static String[] product(String productId, String... args) {
        return ScriptRunner.productArguments(productId, EPOCH, List.of(args)).toArray(String[]::new);
    }

    /** join.lua's ARGV, in the one order its adapter writes them. */
    static String[] join(JoinScript.Args args) {
        return product(args.productId(), JoinScript.arguments(args));
    }
}
