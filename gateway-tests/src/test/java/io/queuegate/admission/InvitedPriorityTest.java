package io.queuegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Invites;
import io.queuegate.support.Lines;
import io.queuegate.support.ScriptCalls;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code invites: priority} through two gateways on one Redis: invited shoppers overtake the
 * uninvited who wait, each line keeps its join order, and an uninvited shopper's rank from an
 * instance's memory counts the invited line, including the places made in it since the instance
 * last read the line: never smaller than the rank Redis would give.
 */
class InvitedPriorityTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "invites", "priority"))
            .with("queuegate.invites.secret", Invites.SECRET)
            .instances(2);

    @Test
    void invitedShoppersOvertakeTheUninvitedAndEachLineKeepsItsOrder() {
        Map<String, String> tokens = new HashMap<>();
        assertThat(join(0, "holder", null, tokens).status()).isEqualTo(200);
        Reply u1 = join(0, "u1", null, tokens);
        Reply u2 = join(1, "u2", null, tokens);
        assertThat(List.of(u1.rank(), u2.rank())).containsExactly(1L, 2L);
        Reply i1 = join(1, "i1", Invites.forProduct("42"), tokens);
        Reply i2 = join(0, "i2", Invites.forProduct("42"), tokens);
        assertThat(List.of(i1.rank(), i2.rank())).containsExactly(1L, 2L);
        assertThat(Lines.of(fixture.redis().commands(), "42")).containsExactly("i1", "i2", "u1", "u2");

        // Every place that frees goes to the invited line first, then the main line, each in order.
        assertThat(admittedOneByOne(tokens, 4)).containsExactly("i1", "i2", "u1", "u2");
    }

    @Test
    void anUninvitedRankFromMemoryCountsTheInvitedWhoJoinedSince() {
        join(0, "holder", null);
        Reply u1 = join(0, "u1", null);
        // Both instances answer u1 from memory once they have read the line.
        for (int instance = 0; instance < 2; instance++) {
            int gateway = instance;
            await().atMost(Duration.ofSeconds(3)).until(() -> poll(gateway, "u1", u1.token()).cookie() == null);
        }
        ScriptCalls calls = ScriptCalls.on(fixture.redis());
        try {
            for (int i = 1; i <= 5; i++) {
                join(1, "i" + i, Invites.forProduct("42"));
                // The instance that made the place counts it before its answer leaves.
                Reply asked = poll(1, "u1", u1.token());
                assertThat(asked.rank()).as("after %d invited joined", i).isGreaterThanOrEqualTo(1 + i);
                assertThat(asked.cookie()).as("answered from memory").isNull();
            }
            assertThat(calls.of("join.lua")).as("the polls cost no script call").isEqualTo(5);
        }
        finally {
            calls.stop();
        }
        // The other instance hears of them as announced, and reads the line again within a second.
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(poll(0, "u1", u1.token()).rank()).isEqualTo(6));
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(poll(1, "u1", u1.token()).rank()).isEqualTo(6));
        fixture.gateway(0).client().get().uri("/queue/42/status").header("Queue-Token", u1.token()).exchange()
                .expectBody().jsonPath("$.rank").isEqualTo(6);
    }

    @Test
    void aCrowdOfBothKindsOnTwoInstancesNeverExceedsMaxActiveAndTheInvitedGoFirst() {
        Map<String, String> tokens = new ConcurrentHashMap<>();
        List<Reply> replies = Flux.range(0, 30)
                .parallel(30).runOn(Schedulers.boundedElastic())
                .map(i -> join(i % 2, (i % 3 == 0 ? "inv" : "plain") + i, i % 3 == 0 ? Invites.forProduct("42") : null,
                        tokens))
                .sequential().collectList().block(Duration.ofSeconds(60));
        assertThat(replies).allMatch(reply -> reply.status() == 200 || reply.status() == 429);
        assertThat(fixture.redis().commands().zcard("qg:{42}:active")).isEqualTo(1);

        List<String> line = Lines.of(fixture.redis().commands(), "42");
        assertThat(line).hasSize(29);
        int firstPlain = indexOfFirst(line, "plain");
        assertThat(line.subList(firstPlain, line.size())).as("no invited shopper behind an uninvited one")
                .allMatch(user -> user.startsWith("plain"));

        assertThat(admittedOneByOne(tokens, 29)).isEqualTo(line);
    }

    /** The admitted shopper leaves, {@code count} times, through either instance: who got in, in order. */
    private static List<String> admittedOneByOne(Map<String, String> tokens, int count) {
        List<String> admitted = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String holder = fixture.redis().commands().zrange("qg:{42}:active", 0, -1).get(0);
            fixture.gateway(i % 2).client().delete().uri("/queue/42").header("X-User-Id", holder)
                    .header("Queue-Token", tokens.get(holder)).exchange().expectStatus().isOk();
            assertThat(fixture.redis().commands().zcard("qg:{42}:active")).isLessThanOrEqualTo(1);
            admitted.add(fixture.redis().commands().zrange("qg:{42}:active", 0, -1).get(0));
        }
        return admitted;
    }

    private static int indexOfFirst(List<String> line, String prefix) {
        for (int i = 0; i < line.size(); i++) {
            if (line.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return line.size();
    }

    private static Reply join(int instance, String user, String invitation) {
        return join(instance, user, invitation, new HashMap<>());
    }

    /** A join; the token it was given goes into {@code tokens}. */
    private static Reply join(int instance, String user, String invitation, Map<String, String> tokens) {
        WebTestClient.RequestHeadersSpec<?> spec = fixture.gateway(instance).client().get().uri("/api/products/42")
                .header("X-User-Id", user);
        if (invitation != null) {
            spec = spec.header("Queue-Invite", invitation);
        }
        Reply reply = reply(spec, null);
        if (reply.token() != null) {
            tokens.put(user, reply.token());
        }
        return reply;
    }

    private static Reply poll(int instance, String user, String token) {
        GatewayInstance gateway = fixture.gateway(instance);
        return reply(gateway.client().get().uri("/api/products/42").header("X-User-Id", user).header("Queue-Token", token),
                token);
    }

    private static Reply reply(WebTestClient.RequestHeadersSpec<?> spec, String token) {
        EntityExchangeResult<byte[]> result = spec.exchange().expectBody().returnResult();
        HttpHeaders headers = result.getResponseHeaders();
        String rank = headers.getFirst("Queue-Rank");
        String issued = headers.getFirst("Queue-Token");
        return new Reply(result.getStatus().value(), rank == null ? -1 : Long.parseLong(rank),
                issued != null ? issued : token, headers.getFirst(HttpHeaders.SET_COOKIE));
    }

    private record Reply(int status, long rank, String token, String cookie) {
    }
}
