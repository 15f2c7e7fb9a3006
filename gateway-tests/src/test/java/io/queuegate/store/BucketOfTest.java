package io.queuegate.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.lettuce.core.ScriptOutputType;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Placement.State;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.ScriptRedis;
import io.queuegate.support.Scripts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * join.lua is given each user's bucket by the gateway ({@link QueueKeys#bucketOf}); status.lua,
 * leave.lua and promotion hash the id in Redis (line.lua's {@code bucket_of}). Both must name one
 * bucket for every id, or a user who joined would be lost to everything else: run both on the same
 * ids, odd ones included.
 */
class BucketOfTest {

    private static final String PID = "buckets";
    private static final long NOW = 1_800_000_000_000L;
    private static final ProductRules RULES = ProductRules.plain(1, Duration.ofMinutes(10), "pubsub");

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void theGatewaysBucketIsTheOneTheOtherScriptsFindTheUserIn() {
        List<String> ids = new ArrayList<>(List.of("u1", "alice@example.com", "김민준", "🛒 shopper", "a:b c\td",
                "x".repeat(300), "ip:203.0.113.7", "sub|auth0|5f2a"));
        Random random = new Random(7);
        for (int i = 0; i < 600; i++) {
            ids.add(i % 3 == 0 ? UUID.randomUUID().toString() : randomText(random));
        }
        List<Joiner> joiners = ids.stream().map(id -> new Joiner(id, null)).toList();
        List<Joined> joined = new ArrayList<>();
        for (int from = 0; from < joiners.size(); from += 64) {
            joined.addAll(redis.scripts().join(new JoinScript.Args(PID, NOW, RULES, Duration.ofHours(2), null,
                    joiners.subList(from, Math.min(joiners.size(), from + 64)))).joined());
        }

        QueueKeys keys = QueueKeys.of(PID);
        for (int i = 1; i < ids.size(); i++) {
            String id = ids.get(i);
            Long ticket = joined.get(i).ticket();
            assertThat(joined.get(i).placement().state()).as(id).isEqualTo(State.WAITING);
            assertThat(redis.commands().hget(keys.bucket(QueueKeys.bucketOf(id)), id)).as(id)
                    .isEqualTo(String.valueOf(ticket));
            PlaceStatus status = redis.scripts().status(PID, id, NOW);
            assertThat(status.placement().state()).as("status.lua finds %s", id).isEqualTo(State.WAITING);
            assertThat(status.ticket()).as(id).isEqualTo(ticket);
        }
        assertThat(ids.stream().map(QueueKeys::bucketOf).distinct().count()).as("the ids spread").isGreaterThan(550);
    }

    @ParameterizedTest
    @ValueSource(strings = {"65536", "061693", "-1", "1.5", "0x10", " 7", "bad", ""})
    void aBucketThatIsNotOneOfTheLinesIsRefusedBeforeAnyoneIsDecided(String bucket) {
        // A number out of range or spelled another way ('061693' is not the key of 61693) would
        // file the user where no other script looks; and the call refuses before deciding the
        // users ahead of it, whose bucket entries it would write without their ticket counter.
        String[] argv = JoinScript.arguments(new JoinScript.Args(PID, NOW, RULES, Duration.ofHours(2), null,
                List.of(new Joiner("first", null), new Joiner("u1", null))));
        argv[argv.length - 1] = bucket;
        LuaScript join = LuaScript.load("join.lua");
        String[] keys = QueueKeys.of(PID).forScripts().toArray(String[]::new);
        assertThatThrownBy(() -> redis.commands().eval(join.source(), ScriptOutputType.MULTI, keys,
                ScriptRunner.productArguments(PID, Scripts.EPOCH, List.of(argv)).toArray(String[]::new)))
                .hasMessageContaining("a bucket is a whole number below 65536");
        assertThat(redis.commands().keys("qg:{" + PID + "}:*")).as("nothing written").isEmpty();
    }

    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        int length = 1 + random.nextInt(40);
        while (text.length() < length) {
            // Latin, Hangul and the astral plane, so every UTF-8 length is hashed.
            int codePoint = switch (random.nextInt(3)) {
                case 0 -> 0x21 + random.nextInt(0x5e);
                case 1 -> 0xac00 + random.nextInt(11_172);
                default -> 0x1f300 + random.nextInt(0x300);
            };
            text.appendCodePoint(codePoint);
        }
        return text.toString();
    }
}
