package io.queuegate.admission;

import java.time.Instant;
import java.util.Objects;

import io.queuegate.challenge.JoinGate;
import io.queuegate.config.BindToken;
import io.queuegate.config.QueuePolicy;
import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.line.LocalAnswers;
import io.queuegate.line.LocalStanding;
import io.queuegate.recovery.Reclaims;
import io.queuegate.room.Invite;
import io.queuegate.room.JoinTerms;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement;
import io.queuegate.room.Stock;
import io.queuegate.store.PlaceStore;
import io.queuegate.store.RedisFailures;
import io.queuegate.token.WaitTokenCodec;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import reactor.core.publisher.Mono;

/**
 * Decides what happens to a request on a protected route: join or find the caller's place in
 * Redis (one script call), and answer active, waiting or refused, in the waiting room's own terms
 * ({@link Admission}); the web layer turns the decision into HTTP. A shopper in line whose token
 * carries their ticket is answered from this instance's view of the line instead
 * ({@link LocalAnswers}), until the token is due to be signed again or their turn may have come.
 */
public class AdmissionService {

    private static final Log log = LogFactory.getLog(AdmissionService.class);

    private final CallerResolver callers;
    private final PlaceStore places;
    private final WaitTokenCodec tokens;
    private final JoinChecks checks;
    private final ActiveCache activeCache;
    private final QueueEvents events;
    private final LocalAnswers local;
    private final Reclaims reclaims;

    /**
     * @param userLimiter counts joins per identified user
     * @param addressLimiter counts joins per client address (IPv6 by /64), identified or not
     * @param joinGate what a join without a token must show first (join-challenge)
     * @param reclaims what a token signed before Redis forgot proves
     */
    public AdmissionService(CallerResolver callers, PlaceStore places, WaitTokenCodec tokens,
            JoinLimiter userLimiter, JoinLimiter addressLimiter, ActiveCache activeCache, QueueEvents events,
            LocalAnswers local, JoinGate joinGate, Reclaims reclaims) {
        this.callers = callers;
        this.places = places;
        this.tokens = tokens;
        this.checks = new JoinChecks(userLimiter, addressLimiter, joinGate);
        this.activeCache = activeCache;
        this.events = events;
        this.local = local;
        this.reclaims = reclaims;
    }

    /**
     * Decides one request: join or find the caller's place in Redis (one script call; two when an
     * admitted holder's pass check does not confirm the session), and answer.
     */
    public Mono<Admission> admit(AdmissionRequest asked) {
        // Of several token cookies, the one read is the request's token from here on: an answer
        // from memory hands it back.
        AdmissionRequest request = asked.withPresented(callers.chosen(asked.productId(), asked.presented()));
        Caller caller;
        try {
            caller = callers.resolve(request.productId(), request.identity(), request.presented(),
                    binds(request.policy()) ? CallerResolver.NetworkCheck.REQUIRE : CallerResolver.NetworkCheck.IGNORE,
                    request.clientAddress());
        }
        catch (QueueRejection rejection) {
            return Mono.just(Admission.Rejected.of(rejection));
        }
        // A token holder found active in the last second passes without a round trip. Not a
        // token that still says "waiting" (its first active answer must come from Redis), not a
        // completing request (its claim must be taken in Redis), and not a token of another epoch
        // of Redis's data (it is signed again with the next answer from Redis). In the pass's last
        // fifth one request renews it while the others pass; when the pass ran out, the holder's
        // requests that come together ask Redis once between them, and only whether the session
        // still holds.
        boolean otherEpoch = caller.hasToken() && reclaims.ofAnotherEpoch(caller.token());
        if (caller.hasToken() && caller.joinedAt() == null && caller.mayForward() && !request.completing()
                && !otherEpoch && activeCache.isEnabled()) {
            if (activeCache.claimsRenewal(caller.productId(), caller.userId())) {
                return activeCache.renewal(caller.productId(), caller.userId(), () -> confirmPass(request, caller, true));
            }
            if (activeCache.isActive(caller.productId(), caller.userId())) {
                return Mono.just(new Admission.Active(caller, null));
            }
            return activeCache.oneCheckAtATime(caller.productId(), caller.userId(),
                    () -> confirmPass(request, caller, false),
                    answered -> afterAnotherCheck(request, caller, answered.orElse(null)));
        }
        return admitPastTheCache(request, caller, otherEpoch);
    }

    /**
     * A holder whose pass ran out: Redis confirms the session in one read and the pass is
     * remembered again. What it does not confirm (a session that ended or that the token names
     * otherwise, a closed room, state of another epoch or none, rules Redis may not hold yet) takes
     * the long way, which decides, recovers, stores the rules and signs the token again.
     *
     * @param renewing whether the pass still held when this request came: then Redis failing to
     *                 answer this read does not end it
     */
    private Mono<Admission> confirmPass(AdmissionRequest request, Caller caller, boolean renewing) {
        Instant signedEnd = caller.token().sessionEnd();
        if (signedEnd == null || signedEnd.toEpochMilli() <= places.millis()) {
            // Redis confirms only the session the token names, and only while it lasts (by a
            // clock read after this one): asking would be a round trip that cannot confirm.
            return admitPastTheCache(request, caller, false);
        }
        if (!request.policy().abandonAfter().isZero()) {
            // As a join would: a product asked about is not in an outage (heard_at), so those in
            // line who stopped asking are still judged by abandon-after.
            local.heard(caller.productId());
        }
        return places.confirmPass(caller.productId(), request.policy().rules(), caller.userId())
                .filter(end -> PlacementDecision.namesSession(caller.token(), end))
                .<Admission>map(end -> {
                    activeCache.remember(caller.productId(), caller.userId());
                    return new Admission.Active(caller, null);
                })
                .onErrorResume(RedisFailures::isRedisFailure, error -> Mono.just(renewing
                        ? new Admission.Active(caller, null) : redisCouldNotAnswer(request, caller, error)))
                .switchIfEmpty(Mono.defer(() -> admitPastTheCache(request, caller, false)));
    }

    /**
     * A request that waited while another of the same holder asked Redis. What could have
     * changed meanwhile is looked at again: the epoch (Redis's data may have been lost, and this
     * token must then be signed again) and the pass, which the other's answer renewed or not.
     * When Redis could not answer the other, it is not asked again at once: this request would
     * only wait out the same timeout.
     */
    private Mono<Admission> afterAnotherCheck(AdmissionRequest request, Caller caller, Admission answered) {
        boolean otherEpoch = reclaims.ofAnotherEpoch(caller.token());
        if (!otherEpoch && activeCache.isActive(caller.productId(), caller.userId())) {
            return Mono.just(new Admission.Active(caller, null));
        }
        if (answered instanceof Admission.Unavailable || answered instanceof Admission.Unchecked) {
            // Under this request's own route's on-redis-failure, which may not be the other's.
            return Mono.just(PlacementDecision.withoutRedis(request, caller));
        }
        return admitPastTheCache(request, caller, otherEpoch);
    }

    /** Decides a request that no remembered pass lets through. */
    private Mono<Admission> admitPastTheCache(AdmissionRequest request, Caller caller, boolean otherEpoch) {
        // A shopper in line asking again, answered from memory. Not a completing request (its
        // claim must be taken in Redis), nor a token due to be signed again.
        if (caller.ticket() != null && !request.completing() && !tokens.dueForRenewal(caller.token())) {
            LocalStanding standing = local.poll(caller.productId(), caller.userId(), caller.ticket(),
                    caller.token().epoch());
            // A pre-queue whose route now names another opening (a refresh moved or removed it)
            // goes to Redis, whose join writes the route's rules.
            if (standing != null && (standing.placement().state() != Placement.State.PRE_QUEUE
                    || Objects.equals(standing.opensAt(), request.policy().opensAt()))) {
                return Mono.just(decide(caller, new Joined(standing.placement(), false, caller.ticket(),
                        standing.seedCommitment(), null, standing.stock()), request, null, request.presented().value(),
                        0));
            }
        }
        QueuePolicy policy = request.policy();
        Invite invite = JoinChecks.invite(policy.invites(), request.invitation());
        // A caller with neither identity nor token got an id made up just now: they hold no place
        // anywhere, so without the invitation a new place needs, Redis has nothing to tell them.
        if (invite.required() && request.identity() == null && request.presented() == null) {
            return Mono.just(PlacementDecision.refused(request.invitation()));
        }
        // What a new place costs: the product's proof of work and a place within the caller's join
        // limits, with or without an old token. Checked here, without counting; the join script
        // says whether the request would make a place (a shopper who holds one pays nothing), and
        // only a place made counts. A caller with neither token nor identity holds nothing
        // anywhere, so it is answered at once, without Redis.
        boolean holdsNothing = !caller.hasToken() && caller.anonymous();
        JoinGate.Outcome proof = checks.proveJoin(request, caller);
        if (proof instanceof JoinGate.Outcome.Unpaid unpaid && (unpaid.presented() || holdsNothing)) {
            Admission challenged = new Admission.Challenged(unpaid.refused() ? Refusal.CHALLENGE_INVALID
                    : Refusal.CHALLENGE_REQUIRED, unpaid.detail(), unpaid.price());
            // Nobody pays to learn that a product is sold out: this instance's view of it says so first.
            return local.soonStock(caller.productId())
                    .filter(Stock::soldOut)
                    .<Admission>map(soldOut -> new Admission.Rejected(Refusal.SOLD_OUT, null, false, 0, false))
                    .defaultIfEmpty(challenged);
        }
        JoinGate.Outcome.Paid paid = proof instanceof JoinGate.Outcome.Paid solved ? solved : null;
        long limitedFor = checks.joinLimit(caller, request);
        if (limitedFor > 0 && holdsNothing) {
            return Mono.just(PlacementDecision.tooManyJoins(limitedFor));
        }
        // A completing request never makes a place: one admission buys once. (A first request
        // without a token that completes is a new shopper, not a re-buy: it joins.)
        JoinTerms terms = new JoinTerms(request.completing() && caller.hasToken(),
                proof instanceof JoinGate.Outcome.Unpaid, limitedFor > 0);
        // A caller who may not be let through must not hold the completion either.
        String claim = request.completing() && caller.mayForward() ? Identifiers.newClaimId() : null;
        // After Redis forgot, what the token proves comes back first (only the holder's own token).
        Joiner joiner = new Joiner(caller.userId(), claim, invite,
                paid == null ? null : paid.solution().mark(), paid == null ? null : paid.solution().markTtl(),
                otherEpoch ? reclaims.of(caller.token(), policy) : null, terms);
        return places.join(caller.productId(), policy.rules(), joiner)
                .map(joined -> {
                    if (joined.enqueued()) {
                        checks.placeMade(caller, request);
                    }
                    return decide(caller, joined, request, claim, null, limitedFor);
                })
                .onErrorResume(RedisFailures::isRedisFailure,
                        error -> Mono.just(redisCouldNotAnswer(request, caller, error)));
    }

    private Admission redisCouldNotAnswer(AdmissionRequest request, Caller caller, Throwable error) {
        events.redisFailure(request.productId(), RedisOperation.ADMISSION, error);
        log.warn("Redis could not answer for product " + request.productId() + "; route fails "
                + request.policy().onRedisFailure().name().toLowerCase() + ": " + error);
        return PlacementDecision.withoutRedis(request, caller);
    }

    private static boolean binds(QueuePolicy policy) {
        return policy.bindToken() == BindToken.NETWORK;
    }

    /**
     * The decision for what Redis (or this instance's view of the line) answered, and what it
     * costs: a place made is told, an admission remembered and its wait measured.
     *
     * @param claim the id of the completion claim the join took if it answers active, else {@code null}
     * @param presentedToken the caller's token when its answer comes from this instance's memory
     *                       (it still says the same, so it is not signed again), else {@code null}
     * @param limitedFor how long until the caller may make another place (0: now)
     */
    private Admission decide(Caller caller, Joined joined, AdmissionRequest request, String claim,
            String presentedToken, long limitedFor) {
        if (joined.enqueued()) {
            events.joined(caller.productId(), request.routeId(), caller.userId(), joined.placement().rank());
            if (joined.ticket() != null && joined.ticket() < 0) {
                // Before the answer leaves: a rank this instance tells the main line next counts it.
                local.invitedJoined(caller.productId(), 1);
            }
        }
        Instant now = tokens.now();
        boolean otherEpoch = caller.hasToken() && reclaims.ofAnotherEpoch(caller.token());
        Admission decision = PlacementDecision.decide(new PlacementDecision.Facts(caller, joined, request.policy(),
                request.invitation(), claim, presentedToken, limitedFor, otherEpoch,
                request.challengeSolution() != null, now),
                (joinedAt, ticket, sessionEnd) -> issue(caller, joinedAt, ticket, request, sessionEnd),
                ticketSpent -> checks.fresh(caller.productId(), request, ticketSpent));
        if (decision instanceof Admission.Active) {
            activeCache.remember(caller.productId(), caller.userId());
        }
        if (PlacementDecision.waitEnded(caller, joined)) {
            // Measured once, because the token issued now no longer says "waiting".
            events.admitted(caller.productId(), request.routeId(), caller.userId(),
                    PlacementDecision.waited(caller, now));
        }
        return decision;
    }

    /**
     * A token for the caller in the current epoch of Redis's data, bound to the request's network
     * when the product binds its tokens.
     *
     * @param sessionEnd when the caller's session ends, for an admitted caller; else {@code null}
     */
    private String issue(Caller caller, Instant joinedAt, Long ticket, AdmissionRequest request, Instant sessionEnd) {
        String network = binds(request.policy())
                ? tokens.networkClaim(ClientAddresses.bindingNetwork(request.clientAddress().get())) : null;
        return tokens.issue(caller.productId(), caller.userId(), caller.anonymous(), joinedAt, ticket, network,
                reclaims.currentEpoch(), sessionEnd);
    }
}
