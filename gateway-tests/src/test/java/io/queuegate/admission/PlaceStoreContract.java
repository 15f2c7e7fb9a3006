package io.queuegate.admission;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.queuegate.room.Invite;
import io.queuegate.room.JoinTerms;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Placement;
import io.queuegate.store.PlaceStore;
import io.queuegate.store.ProductRules;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What admission relies on from its store, run against each store: the real one (Redis, through
 * {@code join.lua}, {@code status.lua}, {@code pass.lua} and {@code leave.lua}) and the in-memory one admission's unit
 * tests use, so the fake cannot tell admission anything the scripts would not.
 */
abstract class PlaceStoreContract {

    private static final Duration SESSION = Duration.ofMinutes(1);
    private static final ProductRules ONE_PLACE = new ProductRules(1, SESSION, "scheduler", null, null, 0,
            Duration.ZERO, Duration.ZERO);
    private static final ProductRules TWO_PLACES = new ProductRules(2, SESSION, "scheduler", null, null, 0,
            Duration.ZERO, Duration.ZERO);
    private static final AtomicInteger PRODUCTS = new AtomicInteger();

    /** The store under test. */
    abstract PlaceStore store();

    /** A product nobody has touched yet. */
    private static String product() {
        return "contract-" + PRODUCTS.incrementAndGet();
    }

    @Test
    void theFirstIsAdmittedAndTheOthersWaitInTicketOrder() {
        String product = product();
        long before = store().millis();
        Joined alice = join(product, "alice");
        assertThat(alice.placement().state()).isEqualTo(Placement.State.ACTIVE);
        assertThat(alice.enqueued()).isTrue();
        assertThat(alice.ticket()).isNull();
        assertThat(alice.sessionEnd()).isBetween(before, store().millis() + SESSION.toMillis());

        assertWaiting(join(product, "bob"), 1, 2, true);
        assertWaiting(join(product, "carol"), 2, 3, true);
        assertWaiting(join(product, "bob"), 1, 2, false);
        Joined again = join(product, "alice");
        assertThat(again.placement().state()).isEqualTo(Placement.State.ACTIVE);
        assertThat(again.enqueued()).isFalse();
    }

    @Test
    void aCompletionGivesThePlaceToTheNextInLine() {
        String product = product();
        join(product, "alice");
        join(product, "bob");
        assertThat(store().complete(product, "alice", null, 0).block()).isTrue();
        assertThat(store().complete(product, "alice", null, 0).block()).as("held nothing any more").isFalse();
        Joined bob = join(product, "bob");
        assertThat(bob.placement().state()).isEqualTo(Placement.State.ACTIVE);
        assertThat(bob.enqueued()).isFalse();
        assertThat(status(product, "alice").placement().state()).isEqualTo(Placement.State.NOT_FOUND);
    }

    @Test
    void aLeaveGivesUpAPlaceInLine() {
        String product = product();
        join(product, "alice");
        join(product, "bob");
        join(product, "carol");
        assertThat(store().leave(product, "bob").block()).isTrue();
        assertThat(store().leave(product, "bob").block()).isFalse();
        PlaceStatus carol = status(product, "carol");
        assertThat(carol.placement().state()).isEqualTo(Placement.State.WAITING);
        assertThat(carol.placement().rank()).isEqualTo(1);
        assertThat(carol.ticket()).isEqualTo(3);
    }

    @Test
    void statusTellsWhereEachStandsWithoutJoining() {
        String product = product();
        join(product, "alice");
        join(product, "bob");
        assertThat(status(product, "alice").placement().state()).isEqualTo(Placement.State.ACTIVE);
        assertThat(status(product, "alice").ticket()).isNull();
        PlaceStatus bob = status(product, "bob");
        assertThat(bob.placement().state()).isEqualTo(Placement.State.WAITING);
        assertThat(bob.placement().rank()).isEqualTo(1);
        assertThat(bob.ticket()).isEqualTo(2);
        assertThat(status(product, "nobody").placement().state()).isEqualTo(Placement.State.NOT_FOUND);
        assertThat(status(product, "nobody").placement().state()).as("asking made no place")
                .isEqualTo(Placement.State.NOT_FOUND);
    }

    @Test
    void aPassIsConfirmedWithTheSessionsEndOnlyWhileTheSessionLasts() {
        String product = product();
        Joined alice = join(product, "alice");
        join(product, "bob");
        assertThat(store().confirmPass(product, ONE_PLACE, "alice").block()).isEqualTo(alice.sessionEnd());
        assertThat(store().confirmPass(product, TWO_PLACES, "alice").block())
                .as("the route's rules changed: a join must store them first").isNull();
        assertThat(store().confirmPass(product, ONE_PLACE, "bob").block()).as("waiting").isNull();
        assertThat(store().confirmPass(product, ONE_PLACE, "nobody").block()).isNull();
        assertThat(status(product, "nobody").placement().state()).as("asking made no place")
                .isEqualTo(Placement.State.NOT_FOUND);
        store().complete(product, "alice", null, 0).block();
        assertThat(store().confirmPass(product, ONE_PLACE, "alice").block()).as("completed").isNull();
        assertThat(store().confirmPass(product, ONE_PLACE, "bob").block()).as("the completion gave bob the place").isNotNull();
    }

    @Test
    void oneCompletionClaimAtATimeUntilItIsGivenBack() {
        String product = product();
        assertThat(join(product, joiner("alice", "first", JoinTerms.NONE)).placement().state())
                .isEqualTo(Placement.State.ACTIVE);
        assertThat(join(product, joiner("alice", "second", JoinTerms.NONE)).placement().state())
                .isEqualTo(Placement.State.COMPLETING);
        assertThat(store().releaseCompletion(product, "alice", "second").block()).as("not its claim").isFalse();
        assertThat(store().releaseCompletion(product, "alice", "first").block()).isTrue();
        assertThat(join(product, joiner("alice", "second", JoinTerms.NONE)).placement().state())
                .isEqualTo(Placement.State.ACTIVE);
    }

    @Test
    void whoHoldsNothingHearsTheTermsOfANewPlaceAndWhoHoldsOneKeepsIt() {
        String product = product();
        join(product, "alice");
        join(product, "bob");
        assertThat(join(product, joiner("carol", null, new JoinTerms(true, false, false))).placement().state())
                .isEqualTo(Placement.State.SESSION_ENDED);
        assertThat(join(product, joiner("carol", null, new JoinTerms(false, true, false))).placement().state())
                .isEqualTo(Placement.State.CHALLENGE_REQUIRED);
        assertThat(join(product, joiner("carol", null, new JoinTerms(false, false, true))).placement().state())
                .isEqualTo(Placement.State.JOIN_LIMITED);
        assertThat(status(product, "carol").placement().state()).isEqualTo(Placement.State.NOT_FOUND);
        assertWaiting(join(product, joiner("bob", null, new JoinTerms(false, true, true))), 1, 2, false);
    }

    @Test
    void aProofOfWorkMarkBuysOnePlace() {
        String product = product();
        Joiner paid = new Joiner("alice", null, Invite.NONE, "c0ffee",
                Duration.ofMinutes(2), null, JoinTerms.NONE);
        assertThat(join(product, paid).enqueued()).isTrue();
        Joiner again = new Joiner("bob", null, Invite.NONE, "c0ffee",
                Duration.ofMinutes(2), null, JoinTerms.NONE);
        assertThat(join(product, again).placement().state()).isEqualTo(Placement.State.CHALLENGE_USED);
        assertThat(status(product, "bob").placement().state()).isEqualTo(Placement.State.NOT_FOUND);
    }

    private Joined join(String product, String user) {
        return join(product, joiner(user, null, JoinTerms.NONE));
    }

    private Joined join(String product, Joiner joiner) {
        return store().join(product, ONE_PLACE, joiner).block();
    }

    private PlaceStatus status(String product, String user) {
        return store().status(product, user, null).block();
    }

    private static Joiner joiner(String user, String claim, JoinTerms terms) {
        return new Joiner(user, claim, Invite.NONE, null, null, null, terms);
    }

    private static void assertWaiting(Joined joined, long rank, long ticket, boolean enqueued) {
        assertThat(joined.placement().state()).isEqualTo(Placement.State.WAITING);
        assertThat(joined.placement().rank()).isEqualTo(rank);
        assertThat(joined.ticket()).isEqualTo(ticket);
        assertThat(joined.enqueued()).isEqualTo(enqueued);
        assertThat(joined.sessionEnd()).isNull();
    }
}
