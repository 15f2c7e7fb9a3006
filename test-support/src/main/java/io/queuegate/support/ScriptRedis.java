package io.queuegate.support;

import io.lettuce.core.api.sync.RedisCommands;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A script test's Redis: one real server for the test class, emptied before every test, with
 * QueueGate's scripts on it ({@link Scripts}) and a plain connection to look at what they wrote.
 * Register it as {@code @RegisterExtension static final ScriptRedis redis = new ScriptRedis();}.
 */
public final class ScriptRedis implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

    private RedisProcess process;
    private RedisCommands<String, String> commands;
    private Scripts scripts;

    @Override
    public void beforeAll(ExtensionContext context) {
        process = RedisProcess.start();
        commands = process.commands();
        scripts = Scripts.on(process);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        process.flushAll();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        scripts.close();
        process.close();
    }

    /** The scripts, through the gateway's own adapters and runner. */
    public Scripts scripts() {
        return scripts;
    }

    /** A plain connection, to read and set keys around a script. */
    public RedisCommands<String, String> commands() {
        return commands;
    }

    /** The server's port, for a connection of the test's own (Pub/Sub). */
    public int port() {
        return process.port();
    }
}
