package io.queuegate.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.room.ScriptCode;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract between the Lua scripts and their Java adapters, read from Redis itself: the key
 * names {@code keys.lua} makes are those {@link QueueKeys} makes, every code table of
 * {@code codes.lua} holds exactly the codes of the enum that mirrors it, every file is ASCII, and an
 * error in a script names the file and line of {@code lua/} it came from.
 */
class ScriptContractTest {

    private static RedisProcess redis;
    private static RedisCommands<String, String> commands;

    @BeforeAll
    static void startRedis() {
        redis = RedisProcess.start();
        commands = redis.commands();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void theScriptsAndQueueKeysNameEveryKeyAndChannelOfAProductAlike() {
        String lua = source("keys.lua") + """
                local k = product_keys(ARGV[1])
                return { k.settings, k.active, k.seq, k.left, k.arriving, k:page(7), k:bucket(65535),
                    k:seen(15000, 42), k:slot('alice'), k:completing('alice'), k:invite('presale-7'),
                    k:challenge('0af3'), k.invited.seq, k.invited.left, k.returning, k.honoured, k.reclaimed,
                    k.invited.reclaimed, k.ended, k.admitted, k.released, k.slot_available, k.invited_joined }
                """;
        List<String> fromLua = commands.eval(lua, ScriptOutputType.MULTI, new String[0], "sneakers-1");
        QueueKeys keys = QueueKeys.of("sneakers-1");
        assertThat(fromLua).containsExactly(keys.settings(), keys.active(), keys.sequence(), keys.left(),
                keys.arriving(), keys.page(7), keys.bucket(65535), keys.seen(15000, 42), keys.slot("alice"),
                keys.completing("alice"), keys.invite("presale-7"), keys.challenge("0af3"), keys.invitedSequence(),
                keys.invitedLeft(), keys.returning(), keys.honoured(), keys.reclaimed(), keys.invitedReclaimed(),
                keys.ended(), keys.admittedChannel(), keys.releasedChannel(), keys.slotAvailableChannel(),
                keys.invitedJoinedChannel());
        assertThat(fromLua.subList(0, 19)).allMatch(key -> key.startsWith("qg:{sneakers-1}:"));
    }

    @Test
    void everyCodeTableHoldsExactlyTheCodesOfTheEnumThatMirrorsIt() {
        for (Map.Entry<String, Class<? extends ScriptCode>> table : ScriptCodes.TABLES.entrySet()) {
            String lua = source("codes.lua") + "local codes = {}\nfor name, code in pairs(" + table.getKey()
                    + ") do codes[#codes + 1] = name .. '=' .. code end\nreturn codes\n";
            List<String> fromLua = commands.eval(lua, ScriptOutputType.MULTI, new String[0]);
            Map<String, String> inLua = new TreeMap<>();
            fromLua.forEach(pair -> inLua.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1)));
            Map<String, String> inJava = new TreeMap<>();
            Arrays.stream(table.getValue().getEnumConstants())
                    .forEach(constant -> inJava.put(((Enum<?>) constant).name(), constant.code()));
            assertThat(inLua).as("codes.lua's %s against %s", table.getKey(), table.getValue().getSimpleName())
                    .isEqualTo(inJava);
        }
    }

    @Test
    void joinLuaNamesItsArgumentsInTheOrderJoinScriptSendsThem() {
        String join = source("join.lua");
        // The call's own arguments go by name: join.lua reads exactly those JoinScript sends.
        String[] argv = JoinScript.arguments(new JoinScript.Args("42", 1, ProductRules.plain(1, Duration.ofMinutes(1),
                "pubsub"), Duration.ofHours(1), null, List.of()));
        int rules = Integer.parseInt(argv[0]);
        List<String> sent = new ArrayList<>();
        for (int i = rules + 2; i < argv.length; i += 2) {
            sent.add(argv[i]);
        }
        assertThat(argv).hasSize(JoinScript.WORDS_BEFORE_USERS);
        assertThat(Arrays.asList(argv).subList(1, rules + 1)).as("the rules, as ProductRules puts them on the wire")
                .isEqualTo(ProductRules.plain(1, Duration.ofMinutes(1), "pubsub").wire());
        Matcher read = Pattern.compile("call\\.([a-z_]+)").matcher(ownText("join.lua"));
        Set<String> reads = new TreeSet<>();
        while (read.find()) {
            reads.add(read.group(1));
        }
        assertThat(reads).as("join.lua's call.<name> reads").isEqualTo(new TreeSet<>(sent));
        assertThat(luaNames(join, "USER_ARGUMENTS")).isEqualTo(javaNames(JoinScript.UserArgument.class));
        assertThat(ownText("join.lua")).as("no argument is read by its position but a user's")
                .doesNotContainPattern("ARGV\\[[0-9]+\\]");
    }

    /** The names in {@code local <table> = { 'a', 'b', ... }}, in order. */
    private static List<String> luaNames(String lua, String table) {
        Matcher list = Pattern.compile("local " + table + " = \\{([^}]*)}").matcher(lua);
        assertThat(list.find()).as("join.lua's %s", table).isTrue();
        List<String> names = new ArrayList<>();
        Matcher name = Pattern.compile("'([a-z_]+)'").matcher(list.group(1));
        while (name.find()) {
            names.add(name.group(1));
        }
        return names;
    }

    private static List<String> javaNames(Class<? extends Enum<?>> arguments) {
        return Arrays.stream(arguments.getEnumConstants()).map(argument -> argument.name().toLowerCase(Locale.ROOT))
                .toList();
    }

    @Test
    void everyScriptIsItsOwnFileWithTheFilesItIncludesPutInTheirPlace() {
        LuaScript join = LuaScript.load("join.lua");
        List<String> files = new ArrayList<>();
        for (int line = 1; line <= join.source().split("\n").length; line++) {
            String file = join.origin(line).substring(0, join.origin(line).indexOf(':'));
            if (files.isEmpty() || !files.get(files.size() - 1).equals(file)) {
                files.add(file);
            }
        }
        // Each file once, the included ones first, in the order the include lines name them.
        assertThat(files).containsExactly("codes.lua", "keys.lua", "rules.lua", "line.lua", "fill.lua", "join.lua");
        assertThat(join.source()).doesNotContain("--!include");
    }

    /**
     * Spring Data Redis's reactive EVAL decodes a script's bytes with the JVM's default charset
     * and Lettuce encodes them again as UTF-8. On Java 17 without a UTF-8 locale (ASCII), a script
     * with one non-ASCII character is kept by Redis under another SHA1 than its own: every call by
     * SHA is refused and sent again with the whole text. Only ASCII survives that unchanged.
     */
    @Test
    void everyFileOfLuaIsAscii() throws java.io.IOException {
        var files = new org.springframework.core.io.support.PathMatchingResourcePatternResolver()
                .getResources("classpath*:" + LuaScript.LOCATION + "*.lua");
        assertThat(files).as("the files of lua/ on the classpath").hasSizeGreaterThan(10);
        for (var file : files) {
            byte[] text = file.getContentAsByteArray();
            for (int i = 0; i < text.length; i++) {
                assertThat(text[i] & 0xff).as("%s, byte %d", file.getFilename(), i).isLessThan(0x80);
            }
        }
    }

    @Test
    void anErrorInAScriptNamesTheFileAndLineItCameFrom() {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
        connections.afterPropertiesSet();
        connections.start();
        try {
            ScriptRunner runner = new ScriptRunner(new ReactiveStringRedisTemplate(connections),
                    new RedisGuard(new Resilience4jBreaker(CircuitBreaker.ofDefaults("test")), Duration.ofSeconds(10)),
                    ScriptEpoch.fixed(io.queuegate.support.Scripts.EPOCH, false));
            LuaScript status = LuaScript.load("status.lua");
            // Another product's keys: keys.lua refuses them.
            assertThatThrownBy(() -> runner.fields(status, QueueKeys.of("7").forScripts(), List.of("42", "alice", "1"))
                    .block(Duration.ofSeconds(10)))
                    .isInstanceOf(RedisSystemException.class)
                    .hasMessageContaining("keys.lua:")
                    .hasMessageContaining("the keys given are not those of product 42");
        }
        finally {
            connections.destroy();
        }
    }

    /** The file as written, without the files it includes. */
    private static String ownText(String file) {
        try (var in = ScriptContractTest.class.getClassLoader().getResourceAsStream(LuaScript.LOCATION + file)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private static String source(String file) {
        return LuaScript.load(file).source();
    }
}
