package io.queuegate.challenge;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.queuegate.config.JoinChallenge;
import io.queuegate.support.PowSolver;
import io.queuegate.support.TestClock;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The price of a place from one network, from the side of an address that takes many: it rises
 * with the places the network made on the product in the last hour, an hour that slides rather
 * than starting afresh at a boundary, and solving cheap challenges ahead of time buys nothing once
 * the price has risen.
 */
class JoinGateTest {

    private static final Instant NOW = Instant.parse("2026-12-04T19:00:00Z");
    private static final int BASE = 100;
    private static final JsonMapper JSON = new JsonMapper();

    private final TestClock clock = new TestClock(NOW);
    private final ProofOfWork pow = new ProofOfWork(ProofOfWork.derivedKey("test-secret-that-is-long-enough-for-hs256-0123456789"),
            List.of(), Duration.ofMinutes(2), clock);
    private final WaitTickets tickets = new WaitTickets(WaitTickets.derivedKey("a-challenge-key"), List.of(),
            Duration.ofMinutes(2), clock);
    private final JoinGate gate = new JoinGate(pow, new JoinRates(clock), tickets, Duration.ofSeconds(10));

    @Test
    void theKthPlaceOfAnHourCostsTheBaseTimesOneMoreThanItsThirties() {
        assertThat(placesAndPrices(1_000)).satisfies(prices -> {
            assertThat(prices[0]).isEqualTo(BASE);
            assertThat(prices[29]).as("the first 30 at the base").isEqualTo(BASE);
            assertThat(prices[30]).as("the 31st").isEqualTo(2 * BASE);
            assertThat(prices[59]).isEqualTo(2 * BASE);
            assertThat(prices[60]).isEqualTo(3 * BASE);
            assertThat(prices[599]).as("the 600th behind one NAT").isEqualTo(20 * BASE);
            assertThat(prices[999]).isEqualTo(34 * BASE);
        });
        assertThat(gate.difficulty("42", BASE, "198.51.100.0")).as("another network pays the base").isEqualTo(BASE);
        assertThat(gate.difficulty("7", BASE, "203.0.113.0")).as("another product too").isEqualTo(BASE);
    }

    /**
     * The old price counted a minute that started afresh: 60 places a minute at the base, some
     * 3,600 an hour. Thirty places made one minute apart still make the 31st dearer, in the last
     * minute of the hour too; a place leaves the count an hour after it was made, or up to five
     * minutes later (the hour slides in five-minute steps), never sooner.
     */
    @Test
    void theThirtyFirstPlaceOfAnHourCostsMoreHoweverSlowlyTheThirtyCame() {
        for (int minute = 0; minute < 30; minute++) {
            clock.set(NOW.plus(Duration.ofMinutes(minute)));
            assertThat(gate.difficulty("42", BASE, "203.0.113.0")).as("place %d", minute + 1).isEqualTo(BASE);
            gate.placed("42", "203.0.113.0");
        }
        clock.set(NOW.plus(Duration.ofMinutes(59)).plusSeconds(59));
        assertThat(gate.difficulty("42", BASE, "203.0.113.0")).as("the 31st, within the hour").isEqualTo(2 * BASE);
        clock.set(NOW.plus(Duration.ofMinutes(64)).plusSeconds(59));
        assertThat(gate.difficulty("42", BASE, "203.0.113.0")).as("no place leaves before its hour and step are out")
                .isEqualTo(2 * BASE);
        clock.set(NOW.plus(Duration.ofMinutes(65)));
        assertThat(gate.difficulty("42", BASE, "203.0.113.0"))
                .as("the five places of the first step have left, the 25 after them still count").isEqualTo(BASE);
    }

    /**
     * Ten places, then thirty fifty minutes later: an hour after the ten, the thirty still count,
     * where a window that starts afresh would have forgotten them all.
     */
    @Test
    void theHourSlidesPlacesLeaveItOneByOneAndNeverAllAtABoundary() {
        placesAndPrices(10);
        clock.set(NOW.plus(Duration.ofMinutes(50)));
        placesAndPrices(30);
        assertThat(gate.difficulty("42", BASE, "203.0.113.0")).as("40 places in the hour").isEqualTo(2 * BASE);

        clock.set(NOW.plus(Duration.ofMinutes(66)));
        assertThat(gate.difficulty("42", BASE, "203.0.113.0")).as("the ten have left, the thirty have not")
                .isEqualTo(2 * BASE);
        clock.set(NOW.plus(Duration.ofMinutes(50 + 66)));
        assertThat(gate.difficulty("42", BASE, "203.0.113.0")).as("the thirty have left too").isEqualTo(BASE);
    }

    @Test
    void aSolutionOfAChallengeFromBeforeThePriceRoseIsAskedToPayAgainNotRefused() {
        JsonNode cheap = tree(gate.fresh("42", BASE, "203.0.113.0", false).challenge());
        String stocked = PowSolver.solve(cheap);
        placesAndPrices(90);

        JoinGate.Outcome outcome = gate.check("42", JoinChallenge.ANONYMOUS, BASE, stocked, null, false, true, "203.0.113.0");

        assertThat(outcome).isInstanceOfSatisfying(JoinGate.Outcome.Unpaid.class, unpaid -> {
            assertThat(unpaid.refused()).as("a 428 with a dearer challenge, not a 403").isFalse();
            assertThat(unpaid.detail()).contains("easier than a place from this network costs now");
            assertThat(unpaid.price().challenge().maxnumber()).isEqualTo(2L * 4 * BASE);
        });
        String paid = PowSolver.solve(tree(((JoinGate.Outcome.Unpaid) outcome).price().challenge()));
        assertThat(gate.check("42", JoinChallenge.ANONYMOUS, BASE, paid, null, false, true, "203.0.113.0"))
                .isInstanceOf(JoinGate.Outcome.Paid.class);
    }

    @Test
    void aChallengeWhoseDifficultyWasEditedIsRefused() {
        JsonNode challenge = tree(gate.fresh("42", BASE, "203.0.113.0", false).challenge());
        placesAndPrices(60);
        String salt = challenge.path("salt").asString();
        long number = PowSolver.find(salt, challenge.path("challenge").asString(), challenge.path("maxnumber").asLong());
        // Solved as issued, then sent with a salt that claims the price paid was higher.
        ((ObjectNode) challenge).put("salt", salt.replace("difficulty=" + BASE, "difficulty=" + 2 * BASE));

        JoinGate.Outcome outcome = gate.check("42", JoinChallenge.POW, BASE, PowSolver.header(challenge, number), null, false,
                true, "203.0.113.0");

        assertThat(outcome).isInstanceOfSatisfying(JoinGate.Outcome.Unpaid.class,
                unpaid -> assertThat(unpaid.refused()).isTrue());
    }

    @Test
    void aSignedInShopperPaysNothingUnderAnonymousButEverythingUnderPow() {
        assertThat(gate.check("42", JoinChallenge.ANONYMOUS, BASE, null, null, false, false, "203.0.113.0"))
                .isInstanceOf(JoinGate.Outcome.Free.class);
        assertThat(gate.check("42", JoinChallenge.POW, BASE, null, null, false, false, "203.0.113.0"))
                .isInstanceOf(JoinGate.Outcome.Unpaid.class);
        assertThat(gate.check("42", JoinChallenge.NONE, BASE, null, null, false, true, "203.0.113.0"))
                .isInstanceOf(JoinGate.Outcome.Free.class);
    }

    /** Makes {@code places} places from one network on product 42; the difficulty asked before each. */
    private int[] placesAndPrices(int places) {
        int[] prices = new int[places];
        for (int i = 0; i < places; i++) {
            prices[i] = gate.difficulty("42", BASE, "203.0.113.0");
            gate.placed("42", "203.0.113.0");
        }
        return prices;
    }

    private static JsonNode tree(Challenge challenge) {
        return JSON.valueToTree(challenge);
    }
}
