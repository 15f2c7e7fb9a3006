package io.queuegate.store;

import reactor.core.publisher.Mono;

/**
 * The epoch a product's scripts are told they run in ({@code keys.lua}'s {@code script_keys}):
 * the {@link RedisEpoch} in the gateway; a fixed one in the scripts' own tests.
 */
public interface ScriptEpoch {

    /** The scripts' epoch argument, read before the first script of a connection. */
    Mono<String> argument();

    /** Redis forgot the scripts: it may be another server, so the epoch is read again first. */
    void forgotten();

    /** An epoch that never changes: {@code id}, with {@code *} while {@code recovering}. */
    static ScriptEpoch fixed(String id, boolean recovering) {
        String argument = recovering ? id + "*" : id;
        return new ScriptEpoch() {
            @Override
            public Mono<String> argument() {
                return Mono.just(argument);
            }

            @Override
            public void forgotten() {
            }
        };
    }
}
