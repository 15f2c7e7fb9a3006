package io.queuegate.docs;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.queuegate.room.Joined;
import io.queuegate.store.DrawSeed;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.QueueSnapshot;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.DrawRecipe;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The recipe docs/drops.md gives buyers, run as printed (its python block, with {@code python3})
 * on what a real draw showed and revealed: it accepts the seed against the commitment shown
 * before the opening, refuses any other seed, and gives the very order the scripts admitted, for
 * a draw whose first ticket is not 1.
 */
class DrawRecipeTest {

    private static final String PID = "recipe";
    private static final long NOW = 1_000_000_000L;
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration IDLE = Duration.ofHours(1);
    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void theDocsRecipeChecksTheSeedAgainstItsCommitmentAndRecomputesTheOrderAdmitted() {
        assumeTrue(DrawRecipe.available(), "python3 is not installed here, so the docs' recipe cannot be run; .ci/run installs it");
        // Three shoppers of an earlier, unscheduled sale take tickets 1 to 3 and are served.
        for (String user : List.of("x", "y", "z")) {
            join(user, NOW, null, null);
        }
        assertThat(admissionOrder(NOW)).containsExactly("x", "y", "z");

        long opensAt = NOW + 60_000;
        Map<Long, String> holders = new HashMap<>();
        String committed = null;
        for (int i = 0; i < 200; i++) {
            Joined joined = join("u" + i, NOW + 1_000 + i, opensAt, io.queuegate.support.Draw.randomSeed());
            committed = committed == null ? joined.seedCommitment() : committed;
            assertThat(joined.seedCommitment()).isEqualTo(committed);
            holders.put(joined.ticket(), "u" + i);
        }
        List<String> admitted = admissionOrder(opensAt);

        QueueSnapshot.Opening opening = redis.scripts().snapshot(PID, opensAt + 1).opening();
        assertThat(opening.firstTicket()).isEqualTo(4);
        List<Long> tickets = DrawRecipe.ticketsInOrder(opening.seed(), opening.firstTicket(), opening.preQueued(),
                committed);
        assertThat(tickets.stream().map(holders::get).toList()).as("the recipe's order").isEqualTo(admitted);

        String another = io.queuegate.support.Draw.randomSeed().seed();
        String commitment = committed;
        assertThatThrownBy(() -> DrawRecipe.ticketsInOrder(another, opening.firstTicket(), opening.preQueued(), commitment))
                .as("a seed that is not the one committed to").hasMessageContaining("not the one committed to");
    }

    private static Joined join(String user, long now, Long opensAt, DrawSeed seed) {
        ProductRules rules = new ProductRules(1, TTL, "scheduler", opensAt == null ? null : Instant.ofEpochMilli(opensAt),
                null, 0, Duration.ZERO, TTL);
        return redis.scripts().join(new JoinScript.Args(PID, user, now, rules, IDLE, seed, null)).only();
    }

    /** Opens what is due at {@code now} and admits one user after another (max-active 1) by ending each session. */
    private static List<String> admissionOrder(long now) {
        List<String> order = new ArrayList<>();
        redis.scripts().promote(PID, now, "");
        while (true) {
            List<String> active = redis.commands().zrange(QueueKeys.of(PID).active(), 0, -1);
            if (active.isEmpty()) {
                return order;
            }
            order.add(active.get(0));
            redis.scripts().leave(PID, active.get(0), now);
        }
    }
}
