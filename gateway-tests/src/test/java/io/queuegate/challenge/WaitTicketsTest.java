package io.queuegate.challenge;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.queuegate.config.JoinChallenge;
import io.queuegate.support.TestClock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait a browser without JavaScript serves for a place: signed, bound to its product and
 * network, priced when it is issued like the proof of work, one open at a time per network and
 * product, and good once it is ready (its single use is the join's, in Redis: see NoScriptJoinTest).
 */
class WaitTicketsTest {

    private static final Instant NOW = Instant.parse("2026-12-07T19:00:00Z");
    private static final int BASE = 100;
    private static final String NETWORK = "203.0.113.0";

    private final TestClock clock = new TestClock(NOW);
    private final WaitTickets tickets = new WaitTickets(WaitTickets.derivedKey("a-challenge-key"), List.of(),
            Duration.ofMinutes(2), clock);
    private final JoinGate gate = new JoinGate(new ProofOfWork("a-challenge-key", List.of(), Duration.ofMinutes(2),
            clock), new JoinRates(clock), tickets, Duration.ofSeconds(10));

    @Test
    void aTicketIsReadyAfterTheBaseWaitAndAskingAgainWaitsForTheSameOne() {
        WaitTickets.Ticket first = unpaid(null).price().ticket();
        assertThat(first.secondsLeft()).isEqualTo(10);
        clock.set(NOW.plusSeconds(4));
        WaitTickets.Ticket again = unpaid(first.value()).price().ticket();
        assertThat(again.value()).as("a reload does not start the wait afresh").isEqualTo(first.value());
        assertThat(again.secondsLeft()).isEqualTo(6);

        clock.set(NOW.plusSeconds(10));
        assertThat(check(first.value())).isInstanceOfSatisfying(JoinGate.Outcome.Paid.class,
                paid -> assertThat(paid.ticket()).isTrue());
    }

    @Test
    void theWaitRisesWithTheNetworksPlacesAsTheDifficultyDoes() {
        for (int i = 0; i < 30; i++) {
            gate.placed("42", NETWORK);
        }
        assertThat(unpaid(null).price().ticket().secondsLeft()).as("the 31st place of the hour").isEqualTo(20);
        assertThat(gate.check("42", JoinChallenge.ANONYMOUS, BASE, null, null, false, true, "198.51.100.0"))
                .isInstanceOfSatisfying(JoinGate.Outcome.Unpaid.class,
                        other -> assertThat(other.price().ticket().secondsLeft()).as("another network").isEqualTo(10));
    }

    @Test
    void aPlaceMadeSpendsTheOpenTicketSoTheNextOneWaitsAfresh() {
        WaitTickets.Ticket first = unpaid(null).price().ticket();
        clock.set(NOW.plusSeconds(10));
        gate.placed("42", NETWORK);
        WaitTickets.Ticket next = unpaid(null).price().ticket();
        assertThat(next.value()).isNotEqualTo(first.value());
        assertThat(next.secondsLeft()).isEqualTo(10);
    }

    @Test
    void aTicketForgedForAnotherProductOrNetworkOrLateProvesNothing() {
        WaitTickets.Ticket ticket = unpaid(null).price().ticket();
        clock.set(NOW.plusSeconds(10));
        assertThat(tickets.check("7", NETWORK, ticket.value())).isInstanceOf(Verdict.Refused.class);
        assertThat(tickets.check("42", "198.51.100.0", ticket.value())).isInstanceOf(Verdict.Refused.class);
        String[] parts = ticket.value().split("\\.");
        assertThat(tickets.check("42", NETWORK, parts[0] + "." + parts[0])).isInstanceOf(Verdict.Refused.class);
        WaitTickets otherKey = new WaitTickets("another-key", List.of(), Duration.ofMinutes(2), clock);
        WaitTickets.Ticket foreign = otherKey.open("42", NETWORK, Duration.ZERO, BASE);
        assertThat(tickets.check("42", NETWORK, foreign.value())).isInstanceOf(Verdict.Refused.class);
        assertThat(tickets.check("42", NETWORK, "garbage")).isInstanceOf(Verdict.Refused.class);
        clock.set(NOW.plusSeconds(10).plus(Duration.ofMinutes(2)));
        assertThat(tickets.check("42", NETWORK, ticket.value())).as("expired").isInstanceOf(Verdict.Refused.class);
    }

    @Test
    void aReadyTicketIsSolvedWithAMarkOfItsOwnAndEveryTicketAnother() {
        WaitTickets.Ticket ticket = unpaid(null).price().ticket();
        clock.set(NOW.plusSeconds(10));
        Verdict.Solved solved = (Verdict.Solved) tickets.check("42", NETWORK, ticket.value());
        assertThat(solved.mark()).matches("[0-9a-f]{32}");
        assertThat(tickets.check("42", NETWORK, ticket.value())).isEqualTo(solved);
        tickets.spent("42", NETWORK);
        WaitTickets.Ticket next = tickets.open("42", NETWORK, Duration.ZERO, BASE);
        assertThat(((Verdict.Solved) tickets.check("42", NETWORK, next.value())).mark()).isNotEqualTo(solved.mark());
    }

    private JoinGate.Outcome.Unpaid unpaid(String ticket) {
        return (JoinGate.Outcome.Unpaid) check(ticket);
    }

    private JoinGate.Outcome check(String ticket) {
        return gate.check("42", JoinChallenge.ANONYMOUS, BASE, null, ticket, false, true, NETWORK);
    }
}
