package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.queuegate.challenge.JoinGate;
import io.queuegate.challenge.JoinRates;
import io.queuegate.challenge.ProofOfWork;
import io.queuegate.challenge.WaitTickets;
import io.queuegate.config.JoinChallenge;
import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;
import io.queuegate.config.RedisFailureMode;
import io.queuegate.events.QueueEvents;
import io.queuegate.line.LineViews;
import io.queuegate.line.LocalAnswers;
import io.queuegate.line.SeenMarks;
import io.queuegate.recovery.Reclaims;
import io.queuegate.recovery.SessionLedger;
import io.queuegate.store.RedisEpoch;
import io.queuegate.support.TestClock;
import io.queuegate.support.Tokens;
import io.queuegate.token.WaitTokenCodec;

/**
 * The admission decision and what happens to a place after it, wired as the gateway wires them but
 * to an {@link InMemoryPlaceStore} and a {@link TestClock}: no Redis, no HTTP, no waiting. This
 * instance has never read a view of any line, so every shopper in line is answered by the store.
 */
public final class InMemoryAdmission {

    public static final String SECRET = "unit-test-secret-that-is-long-enough-for-hs256-0123456789";
    public static final Instant START = Instant.parse("2026-12-05T12:00:00Z");

    public final TestClock clock = new TestClock(START);
    public final InMemoryPlaceStore store = new InMemoryPlaceStore(clock, Set.of());
    public final WaitTokenCodec tokens = Tokens.codec(SECRET, clock);
    public final List<String> admittedAfterWaiting = new ArrayList<>();
    public final AdmissionService service;
    public final Sessions sessions;

    /**
     * @param joinsPerAddress how many places one address may make a minute
     * @param joinsPerCaller how many places one identified caller may make a minute
     */
    public InMemoryAdmission(int joinsPerAddress, int joinsPerCaller) {
        ActiveCache activeCache = new ActiveCache(null, clock, Duration.ofSeconds(1));
        QueueEvents events = new QueueEvents() {
            @Override
            public void admitted(String productId, String routeId, String userId, Duration waited) {
                admittedAfterWaiting.add(userId + " after " + waited.toSeconds() + " s");
            }
        };
        LocalAnswers local = new LocalAnswers(new LineViews(null, null, clock), new SeenMarks(null, clock), clock);
        Reclaims reclaims = new Reclaims(new RedisEpoch(null, clock, Duration.ofMinutes(10)),
                new SessionLedger(null, clock), clock);
        JoinGate joinGate = new JoinGate(new ProofOfWork(ProofOfWork.derivedKey(SECRET), List.of(),
                Duration.ofMinutes(2), clock), new JoinRates(clock), new WaitTickets(WaitTickets.derivedKey(SECRET),
                List.of(), Duration.ofMinutes(2), clock), Duration.ofSeconds(10));
        service = new AdmissionService(new CallerResolver(tokens), store, tokens,
                new JoinLimiter(joinsPerCaller, Duration.ofMinutes(1), clock),
                new JoinLimiter(joinsPerAddress, Duration.ofMinutes(1), clock), activeCache, events, local, joinGate,
                reclaims);
        sessions = new Sessions(store, activeCache, events, local, tokens, reclaims);
    }

    public InMemoryAdmission() {
        this(1_000, 1_000);
    }

    /** The session every policy here gives unless a test says otherwise. */
    public static final Duration SESSION = Duration.ofMinutes(5);

    /**
     * A route's policy: {@code maxActive} places of {@code session} each, the given proof of work,
     * the given answer to a Redis failure; nobody is dropped for not asking (abandon-after 0).
     */
    public static QueuePolicy policy(int maxActive, Duration session, JoinChallenge challenge, RedisFailureMode onRedisFailure) {
        return QueuePolicy.from(new QueueSettings(maxActive, session, null, null, onRedisFailure, null, null, null,
                null, null, Duration.ZERO, null, null, null, challenge, null, null, null, null, null, null, null, null));
    }

    public static QueuePolicy policy(int maxActive, JoinChallenge challenge, RedisFailureMode onRedisFailure) {
        return policy(maxActive, SESSION, challenge, onRedisFailure);
    }

    public static QueuePolicy policy(int maxActive) {
        return policy(maxActive, JoinChallenge.NONE, RedisFailureMode.CLOSED);
    }

    /**
     * One request for the product.
     *
     * @param identity the caller's identity, {@code null} for an anonymous caller
     * @param token the wait token it presents, or {@code null}
     */
    public Admission admit(QueuePolicy policy, String identity, String token, boolean completing) {
        return admit(policy, identity, token, completing, "203.0.113.7");
    }

    public Admission admit(QueuePolicy policy, String identity, String token, boolean completing, String address) {
        return service.admit(new AdmissionRequest("42", identity,
                token == null ? null : new PresentedToken(token, false, false), policy, () -> address, "products",
                completing, null, null)).block();
    }
}
