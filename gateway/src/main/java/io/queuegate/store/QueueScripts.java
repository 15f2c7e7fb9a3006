package io.queuegate.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts from {@code lua/}, each built once so its SHA1 is computed once and calls go
 * by EVALSHA. Scripts that touch a product's line get {@code line.lua} and {@code fill.lua}
 * prepended, so the line's layout and the promotion rule are written once.
 */
public final class QueueScripts {

    /** Where the build copies the top-level {@code lua/} folder inside the jar. */
    public static final String LOCATION = "META-INF/queuegate/lua/";

    @SuppressWarnings("rawtypes")
    private static final Class<List> LIST = List.class;

    private final RedisScript<List<Long>> join;
    private final RedisScript<Long> promote;
    private final RedisScript<List<Long>> leave;
    private final RedisScript<List<Long>> status;
    private final RedisScript<Long> expire;
    private final RedisScript<List<String>> claim;
    private final RedisScript<Long> admin;
    private final RedisScript<List<Long>> snapshot;
    private final RedisScript<List<Long>> due;
    private final RedisScript<Long> reschedule;
    private final RedisScript<List<String>> peek;

    @SuppressWarnings("unchecked")
    public QueueScripts() {
        String shared = read("line.lua") + read("fill.lua");
        this.join = (RedisScript<List<Long>>) (RedisScript<?>) RedisScript.of(shared + read("join.lua"), LIST);
        this.promote = RedisScript.of(shared + read("promote.lua"), Long.class);
        this.leave = (RedisScript<List<Long>>) (RedisScript<?>) RedisScript.of(shared + read("leave.lua"), LIST);
        this.status = (RedisScript<List<Long>>) (RedisScript<?>) RedisScript.of(shared + read("status.lua"), LIST);
        this.admin = RedisScript.of(shared + read("admin.lua"), Long.class);
        this.snapshot = (RedisScript<List<Long>>) (RedisScript<?>) RedisScript.of(shared + read("snapshot.lua"), LIST);
        this.expire = RedisScript.of(shared + read("expire.lua"), Long.class);
        this.claim = (RedisScript<List<String>>) (RedisScript<?>) RedisScript.of(read("claim.lua"), LIST);
        this.due = (RedisScript<List<Long>>) (RedisScript<?>) RedisScript.of(shared + read("due.lua"), LIST);
        this.reschedule = RedisScript.of(read("reschedule.lua"), Long.class);
        this.peek = (RedisScript<List<String>>) (RedisScript<?>) RedisScript.of(shared + read("peek.lua"), LIST);
    }

    public RedisScript<List<Long>> join() {
        return join;
    }

    public RedisScript<Long> promote() {
        return promote;
    }

    public RedisScript<List<Long>> leave() {
        return leave;
    }

    public RedisScript<List<Long>> status() {
        return status;
    }

    public RedisScript<Long> expire() {
        return expire;
    }

    public RedisScript<List<String>> claim() {
        return claim;
    }

    public RedisScript<Long> admin() {
        return admin;
    }

    public RedisScript<List<Long>> snapshot() {
        return snapshot;
    }

    public RedisScript<List<Long>> due() {
        return due;
    }

    public RedisScript<Long> reschedule() {
        return reschedule;
    }

    public RedisScript<List<String>> peek() {
        return peek;
    }

    private static String read(String name) {
        try (InputStream in = new ClassPathResource(LOCATION + name).getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Redis script " + LOCATION + name + " is missing from the classpath", ex);
        }
    }
}
