package io.queuegate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.queuegate.room.Joiner;
import io.queuegate.room.Placement.State;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.LeaveScript;
import io.queuegate.support.ScriptRedis;
import io.queuegate.support.Scripts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A product whose settings hash only the previous release wrote (its rules under {@code max},
 * {@code ttl}, {@code strategy}, {@code opens}, {@code apm}, {@code abandon}, {@code arrival},
 * {@code units}, {@code stock_set}): the scripts of this release, which keep each rule under its
 * route field's name, still obey it until a join of theirs stores the rules again, and that join
 * changes nothing the rules did not change (rules.lua).
 */
class PreviousRulesScriptsTest {

    private static final String PID = "9";
    private static final long NOW = 1_000_000L;
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration IDLE = Duration.ofHours(1);
    private static final QueueKeys KEYS = QueueKeys.of(PID);

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void aLeaveAdmitsTheNextByThePreviousReleasesMaxActiveAndSession() {
        ProductRules rules = new ProductRules(2, TTL, "pubsub", null, null, 0, Duration.ZERO, Duration.ofSeconds(30));
        for (String user : List.of("a", "b", "c", "d")) {
            redis.scripts().join(PID, user, NOW, rules, IDLE);
        }
        asThePreviousReleaseWroteIt();

        assertThat(redis.scripts().leave(PID, "a", NOW + 1).promoted()).as("max 2, one place freed").isEqualTo(1);
        assertThat(redis.commands().zscore(KEYS.active(), "c")).as("an arrival of 'arrival' ms")
                .isEqualTo((double) (NOW + 1 + 30_000));
        assertThat(redis.scripts().status(PID, "d", NOW + 2).placement().state()).isEqualTo(State.WAITING);
        assertThat(redis.scripts().snapshot(PID, NOW + 2).routeMaxActive()).isEqualTo(2);
    }

    @Test
    void aJoinOfThisReleaseStoresTheRulesByNameWithoutApplyingTheStockAgain() {
        ProductRules rules = new ProductRules(2, TTL, "pubsub", null, null, 0, Duration.ofSeconds(30),
                Duration.ofSeconds(30), 1, 3L);
        for (String user : List.of("a", "b", "c")) {
            redis.scripts().join(PID, user, NOW, rules, IDLE);
        }
        redis.scripts().scripts().leave().run(PID, "a", NOW + 1, false, LeaveScript.Ending.sale(null, 0))
                .block(Duration.ofSeconds(10));
        String seenSince = redis.commands().hget(KEYS.settings(), "seen_since");
        asThePreviousReleaseWroteIt();

        assertThat(redis.scripts().join(PID, "c", NOW + 2, rules, IDLE).only().stock().left())
                .as("3 given, 1 sold: the same setting is no restock").isEqualTo(2);
        Map<String, String> settings = redis.commands().hgetall(KEYS.settings());
        assertThat(settings).containsEntry("rule:max-active", "2").containsEntry("rule:stock", "3")
                .containsEntry("rule:abandon-after", "30000").containsEntry("seen_since", seenSince);
    }

    @Test
    void aRuleThisReleaseRemovedIsNotReadFromThePreviousReleasesField() {
        Instant opensAt = Instant.ofEpochMilli(NOW + 60_000);
        ProductRules sale = new ProductRules(2, TTL, "pubsub", opensAt, null, 0, Duration.ZERO, TTL);
        redis.scripts().join(new JoinScript.Args(PID, NOW, sale, IDLE, Scripts.SEED, List.of(new Joiner("a", null))));
        asThePreviousReleaseWroteIt();
        assertThat(redis.scripts().status(PID, "a", NOW + 1).placement().state()).as("the previous release's opens")
                .isEqualTo(State.PRE_QUEUE);

        ProductRules moved = new ProductRules(2, TTL, "pubsub", null, null, 0, Duration.ZERO, TTL);
        assertThat(redis.scripts().join(PID, "b", NOW + 2, moved, IDLE).only().placement().state())
                .as("the sale is open now: the route has no opens-at any more").isNotEqualTo(State.PRE_QUEUE);
        assertThat(redis.commands().hexists(KEYS.settings(), "rule:opens-at")).isFalse();
    }

    /** Each rule's field renamed to the one the previous release wrote, as after an upgrade. */
    private static void asThePreviousReleaseWroteIt() {
        Map<String, String> previous = Map.of("max-active", "max", "session-ttl", "ttl", "promotion", "strategy",
                "opens-at", "opens", "max-admit-per-minute", "apm", "abandon-after", "abandon", "arrival-ttl",
                "arrival", "units-per-shopper", "units", "stock", "stock_set");
        Map<String, String> settings = redis.commands().hgetall(KEYS.settings());
        settings.forEach((field, value) -> {
            if (field.startsWith("rule:")) {
                redis.commands().hdel(KEYS.settings(), field);
                String old = previous.get(field.substring("rule:".length()));
                if (old != null) {
                    redis.commands().hset(KEYS.settings(), old, value);
                }
            }
        });
    }
}
