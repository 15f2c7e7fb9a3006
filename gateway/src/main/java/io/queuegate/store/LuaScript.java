package io.queuegate.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * One script of the top-level {@code lua/} folder as Redis runs it: its own text with the files
 * it names in {@code --!include <file>} lines put in their place (each file once, the included
 * ones first), built once so its SHA1 is computed once and calls go by EVALSHA (the
 * {@link ScriptRunner} loads it into Redis first). An error Redis
 * reports at a line of the assembled text is traced back to the file and line it came from.
 */
public final class LuaScript {

    /** Where the build copies the top-level {@code lua/} folder inside the jar. */
    public static final String LOCATION = "META-INF/queuegate/lua/";

    private static final String INCLUDE = "--!include ";
    private static final Pattern REDIS_LINE = Pattern.compile("user_script:(\\d+)");

    private final String name;
    private final String source;
    private final List<String> origins;
    @SuppressWarnings("rawtypes")
    private final RedisScript<List> script;

    private LuaScript(String name, String source, List<String> origins) {
        this.name = name;
        this.source = source;
        this.origins = origins;
        this.script = RedisScript.of(source, List.class);
    }

    /** Loads {@code name} (such as {@code join.lua}) and the files it includes from the classpath. */
    public static LuaScript load(String name) {
        return load(name, LuaScript::read);
    }

    /**
     * Assembles {@code name} from files {@code files} reads by name, by the same include rule: for
     * the benchmarks, which compare a script with its text at another git revision.
     */
    public static LuaScript load(String name, Function<String, String> files) {
        StringBuilder source = new StringBuilder();
        List<String> origins = new ArrayList<>();
        append(name, files, new HashSet<>(), source, origins);
        return new LuaScript(name, source.toString(), List.copyOf(origins));
    }

    private static void append(String name, Function<String, String> files, Set<String> seen, StringBuilder source,
            List<String> origins) {
        if (!seen.add(name)) {
            return;
        }
        String[] lines = files.apply(name).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.startsWith(INCLUDE)) {
                append(line.substring(INCLUDE.length()).trim(), files, seen, source, origins);
                continue;
            }
            source.append(line).append('\n');
            origins.add(name + ":" + (i + 1));
        }
    }

    public String name() {
        return name;
    }

    /** The assembled text Redis runs. */
    public String source() {
        return source;
    }

    /** The SHA1 Redis knows the script by. */
    public String sha1() {
        return script.getSha1();
    }

    @SuppressWarnings("rawtypes")
    RedisScript<List> redisScript() {
        return script;
    }

    /** The file and line a line of the assembled text came from, such as {@code fill.lua:57}. */
    public String origin(int line) {
        return line >= 1 && line <= origins.size() ? origins.get(line - 1) : name + " (line " + line + ")";
    }

    /** A Redis error message with its script line replaced by the file and line it came from. */
    String traced(String message) {
        if (message == null) {
            return name + " failed";
        }
        Matcher matcher = REDIS_LINE.matcher(message);
        StringBuilder traced = new StringBuilder();
        while (matcher.find()) {
            matcher.appendReplacement(traced, Matcher.quoteReplacement(origin(Integer.parseInt(matcher.group(1)))));
        }
        matcher.appendTail(traced);
        return traced.toString();
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
