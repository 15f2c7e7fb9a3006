package io.queuegate.store;

import java.time.Duration;
import java.util.List;

import io.queuegate.room.AdminAction;
import io.queuegate.room.JoinTerms;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement.State;
import io.queuegate.room.Stock;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.LeaveScript;
import io.queuegate.store.script.StockScript;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The line knows the stock, at the scripts' level with {@code now} passed in: nobody is admitted
 * to buy nothing, the shop's header only lowers the stock, a sale without it counts down a stock
 * an operator or the setting gave, sold out turns everyone away but keeps their places, and a
 * restock serves them in their order.
 */
class StockScriptsTest {

    /** A sale the shop confirmed without saying the stock. */
    private static final LeaveScript.Ending SALE = LeaveScript.Ending.sale(null, 0);

    private static final String PID = "7";
    private static final long NOW = 1_000_000L;
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration IDLE = Duration.ofHours(1);
    private static final Duration ABANDON = Duration.ofSeconds(10);
    private static final QueueKeys KEYS = QueueKeys.of(PID);

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void admitsNoMoreShoppersThanTheStockCanServeEvenWithPlacesFree() {
        ProductRules rules = rules(10, 2, 5L);
        for (String user : List.of("a", "b", "c", "d", "e")) {
            join(user, NOW, rules);
        }
        assertThat(redis.commands().zcard(KEYS.active())).as("5 units, 2 a shopper: 3 carts, the last of 1 unit")
                .isEqualTo(3);
        Joined d = join("d", NOW + 1, rules);
        assertThat(d.placement().state()).isEqualTo(State.WAITING);
        assertThat(d.stock()).isEqualTo(new Stock(5, 3, 2));
        assertThat(d.stock().serves(d.placement().rank())).as("3 carts already take all 5 units").isFalse();
    }

    @Test
    void aSaleWithoutTheShopsWordCountsDownTheStockItWasGivenAndFreesNoPlaceBeyondIt() {
        ProductRules rules = rules(2, 1, 3L);
        for (String user : List.of("a", "b", "c", "d")) {
            join(user, NOW, rules);
        }
        assertThat(sell("a", NOW + 1, SALE).stock()).isEqualTo(2);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).as("2 left, b and c may buy them")
                .containsExactlyInAnyOrder("b", "c");
        LeaveScript.Result sold = sell("b", NOW + 2, SALE);
        assertThat(sold.stock()).isEqualTo(1);
        assertThat(sold.promoted()).as("c's cart takes the last unit: d is not admitted to buy nothing").isZero();
        assertThat(join("d", NOW + 3, rules).placement().state()).isEqualTo(State.WAITING);
        LeaveScript.Result last = sell("c", NOW + 4, SALE);
        assertThat(last.stock()).isZero();
        assertThat(last.soldOut()).isTrue();
        assertThat(snapshot(NOW + 4).stock()).isEqualTo(new QueueSnapshot.StockState(0, 1, "set", NOW + 4));
    }

    @Test
    void theShopsHeaderSetsTheStockEitherWayUnlessItsRequestWasForwardedBeforeTheLastChange() {
        ProductRules rules = rules(5, 1, null);
        join("a", NOW, rules);
        assertThat(join("a", NOW, rules).stock()).as("nobody said it yet").isNull();
        assertThat(said(8, NOW + 2, NOW + 1)).isEqualTo(new StockScript.Result(8, true, false, 0, 0));
        assertThat(said(9, NOW + 3, NOW + 3)).as("a newer answer raises it").isEqualTo(new StockScript.Result(9, true, false, 0, 0));
        assertThat(said(4, NOW + 4, NOW + 2)).as("an answer to a request forwarded before the last change")
                .isEqualTo(new StockScript.Result(9, false, false, 0, 0));
        assertThat(sell("a", NOW + 5, LeaveScript.Ending.sale(7L, NOW + 4)).stock()).isEqualTo(7);
        join("b", NOW + 6, rules);
        assertThat(sell("b", NOW + 7, SALE).stock())
                .as("the shop says the stock: a sale without its word counts nothing down").isEqualTo(7);
        assertThat(said(0, NOW + 8, NOW + 8)).isEqualTo(new StockScript.Result(0, true, true, 0, 0));
        assertThat(join("c", NOW + 9, rules).placement().state()).isEqualTo(State.SOLD_OUT);
    }

    @Test
    void anOperatorsStockStandsAgainstAnswersToRequestsForwardedBeforeIt() {
        ProductRules rules = rules(5, 1, null);
        join("a", NOW, rules);
        said(3, NOW + 1, NOW + 1);
        redis.scripts().admin(PID, AdminAction.STOCK, "20", NOW + 10);
        assertThat(said(2, NOW + 12, NOW + 9).stock()).as("forwarded before the restock, answered after").isEqualTo(20);
        assertThat(said(19, NOW + 13, NOW + 11).stock()).as("forwarded after it: the shop's word again").isEqualTo(19);
        redis.scripts().admin(PID, AdminAction.STOCK, "19", NOW + 20);
        assertThat(said(25, NOW + 22, NOW + 15).stock()).as("an operator's word that repeats the stock is a change too")
                .isEqualTo(19);
    }

    @Test
    void aRestockByTheShopFillsThePlacesItFrees() {
        ProductRules rules = rules(3, 1, null);
        for (String user : List.of("a", "b", "c")) {
            join(user, NOW, rules);
        }
        said(1, NOW + 1, NOW + 1);
        sell("a", NOW + 2, SALE);
        join("d", NOW + 2, rules);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).as("the sale freed a place, but one unit serves no cart more: d waits").containsExactly("b", "c");
        sell("b", NOW + 3, LeaveScript.Ending.sale(0L, NOW + 3));
        assertThat(join("d", NOW + 4, rules).placement().state()).isEqualTo(State.SOLD_OUT);
        StockScript.Result restocked = said(3, NOW + 5, NOW + 5);
        assertThat(restocked.promoted()).as("c holds one cart, two more places free for the line").isEqualTo(1);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactlyInAnyOrder("c", "d");
    }

    @Test
    void anEndWithoutASaleFreesThePlaceAndCountsNothing() {
        ProductRules rules = rules(1, 1, 3L);
        join("a", NOW, rules);
        join("b", NOW, rules);
        LeaveScript.Result ended = sell("a", NOW + 1, LeaveScript.Ending.withoutSale(null, NOW + 1));
        assertThat(ended.held()).isTrue();
        assertThat(ended.stock()).as("a refused order sent back to the cart sold nothing").isEqualTo(3);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("b");
    }

    @Test
    void soldOutTurnsNewcomersAwayTellsTheLineKeepsTheirPlacesAndARestockServesThemInOrder() {
        ProductRules rules = rules(1, 1, 2L);
        for (String user : List.of("a", "b", "c", "d")) {
            join(user, NOW, rules);
        }
        sell("a", NOW + 1, SALE);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("b");
        sell("b", NOW + 2, SALE);

        Joined c = join("c", NOW + 3, rules);
        assertThat(c.placement().state()).as("in line, told it is sold out").isEqualTo(State.SOLD_OUT);
        assertThat(c.ticket()).as("and still holding the place").isNotNull();
        assertThat(join("zoe", NOW + 3, rules).placement().state()).isEqualTo(State.SOLD_OUT);
        assertThat(redis.scripts().status(PID, "d", NOW + 3).placement().state()).isEqualTo(State.SOLD_OUT);
        assertThat(redis.scripts().status(PID, "zoe", NOW + 3).placement().state()).isEqualTo(State.SOLD_OUT);
        assertThat(redis.scripts().promote(PID, NOW + 4, "").moved()).isZero();

        // Long after abandon-after: nobody asked (they were told to stop), nobody was dropped.
        long restock = NOW + 60_000;
        assertThat(redis.scripts().admin(PID, AdminAction.STOCK, "5", restock)).as("c first, one place").isEqualTo(1);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("c");
        assertThat(join("d", restock + 1, rules).placement().rank()).isEqualTo(1);
        assertThat(join("zoe", restock + 1, rules).placement().rank()).as("a newcomer behind those who kept their places")
                .isEqualTo(2);
        assertThat(snapshot(restock).stock().soldOutAt()).isNull();
    }

    @Test
    void anActiveShopperFinishesWhenTheProductSellsOut() {
        ProductRules rules = rules(2, 1, null);
        join("a", NOW, rules);
        join("b", NOW, rules);
        said(0, NOW + 1, NOW + 1);
        assertThat(join("a", NOW + 2, rules).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(redis.scripts().status(PID, "b", NOW + 2).placement().state()).isEqualTo(State.ACTIVE);
    }

    @Test
    void theSettingSetsTheStockWhenItFirstComesOrChangesAndAnOperatorMayForgetIt() {
        join("a", NOW, rules(1, 1, 3L));
        sell("a", NOW + 1, SALE);
        assertThat(join("b", NOW + 2, rules(1, 1, 3L)).stock().left()).as("the same setting again: no restock")
                .isEqualTo(2);
        assertThat(join("b", NOW + 3, rules(1, 1, 10L)).stock().left()).as("a new setting: a restock").isEqualTo(10);
        redis.scripts().admin(PID, AdminAction.STOCK, "", NOW + 4);
        assertThat(join("b", NOW + 5, rules(1, 1, 10L)).stock()).as("forgotten, and the setting does not come back")
                .isNull();
    }

    @Test
    void viewsAndStatusCarryTheStockForAnswersFromMemory() {
        ProductRules rules = rules(1, 1, 4L);
        join("a", NOW, rules);
        join("b", NOW, rules);
        assertThat(redis.scripts().status(PID, "b", NOW + 1).stock()).isEqualTo(new Stock(4, 1, 1));
        assertThat(redis.scripts().scripts().view().run(PID, null, -1).block(Duration.ofSeconds(10)).stock())
                .isEqualTo(new Stock(4, 1, 1));
    }

    @Test
    void inAClosedRoomWhoHoldsNothingHearsFirstWhatNoReopeningChanges() {
        ProductRules rules = rules(1, 1, 5L);
        join("a", NOW, rules);
        join("b", NOW, rules);
        redis.scripts().admin(PID, AdminAction.MODE, "closed", NOW + 1);
        Joiner completing = new Joiner("zoe", null).under(new JoinTerms(true, false, false));
        assertThat(redis.scripts().join(new JoinScript.Args(PID, NOW + 2, rules, IDLE, null, List.of(completing)))
                .placement().state()).as("a completion never makes a place, open or closed").isEqualTo(State.SESSION_ENDED);
        assertThat(join("zoe", NOW + 2, rules).placement().state()).isEqualTo(State.ROOM_CLOSED);
        said(0, NOW + 3, NOW + 3);
        assertThat(join("zoe", NOW + 4, rules).placement().state()).isEqualTo(State.SOLD_OUT);
        assertThat(join("b", NOW + 4, rules).placement().state()).as("in line: the room's word, place kept")
                .isEqualTo(State.ROOM_CLOSED);
    }

    private static ProductRules rules(int maxActive, int unitsPerShopper, Long stock) {
        return new ProductRules(maxActive, TTL, "scheduler", null, null, 0, ABANDON, TTL, unitsPerShopper, stock);
    }

    private static Joined join(String user, long now, ProductRules rules) {
        return redis.scripts().join(PID, user, now, rules, IDLE).only();
    }

    private static LeaveScript.Result sell(String user, long now, LeaveScript.Ending ending) {
        return redis.scripts().scripts().leave().run(PID, user, now, false, ending).block(Duration.ofSeconds(10));
    }

    private static StockScript.Result said(long unitsLeft, long now, long forwardedAt) {
        return redis.scripts().scripts().stock().run(PID, unitsLeft, now, forwardedAt).block(Duration.ofSeconds(10));
    }

    private static QueueSnapshot snapshot(long now) {
        return redis.scripts().snapshot(PID, now);
    }
}
