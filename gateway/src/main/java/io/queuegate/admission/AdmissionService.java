package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import io.queuegate.challenge.JoinGate;
import io.queuegate.config.BindToken;
import io.queuegate.config.InviteMode;
import io.queuegate.config.QueuePolicy;
import io.queuegate.config.RedisFailureMode;
import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.invites.Invitation;
import io.queuegate.invites.InvitationCheck;
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
import io.queuegate.token.WaitToken;
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
    private final JoinLimiter userLimiter;
    private final JoinLimiter addressLimiter;
    private final ActiveCache activeCache;
    private final QueueEvents events;
    private final LocalAnswers local;
    private final JoinGate joinGate;
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
        this.userLimiter = userLimiter;
        this.addressLimiter = addressLimiter;
        this.activeCache = activeCache;
        this.events = events;
        this.local = local;
        this.joinGate = joinGate;
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
        // of Redis's data (it is signed again with the next answer from Redis). When the pass ran
        // out, the holder's requests that come together ask Redis once between them, and only
        // whether the session still holds.
        boolean otherEpoch = caller.hasToken() && reclaims.ofAnotherEpoch(caller.token());
        if (caller.hasToken() && caller.joinedAt() == null && caller.mayForward() && !request.completing()
                && !otherEpoch && activeCache.isEnabled()) {
            if (activeCache.isActive(caller.productId(), caller.userId())) {
                return Mono.just(new Admission.Active(caller, null));
            }
            return activeCache.oneCheckAtATime(caller.productId(), caller.userId(),
                    () -> confirmPass(request, caller),
                    answered -> afterAnotherCheck(request, caller, answered.orElse(null)));
        }
        return admitPastTheCache(request, caller, otherEpoch);
    }

    /**
     * A holder whose pass ran out: Redis confirms the session in one read and the pass is
     * remembered again. What it does not confirm (a session that ended or that the token names
     * otherwise, a closed room, state of another epoch or none, rules Redis may not hold yet) takes
     * the long way, which decides, recovers, stores the rules and signs the token again.
     */
    private Mono<Admission> confirmPass(AdmissionRequest request, Caller caller) {
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
                .filter(end -> namesSession(caller.token(), end))
                .<Admission>map(end -> {
                    activeCache.remember(caller.productId(), caller.userId());
                    return new Admission.Active(caller, null);
                })
                .onErrorResume(RedisFailures::isRedisFailure, error -> Mono.just(redisCouldNotAnswer(request, caller,
                        error)))
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
            return Mono.just(whenRedisCannotAnswer(request, caller));
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
        Invite invite = invite(policy.invites(), request.invitation());
        // A caller with neither identity nor token got an id made up just now: they hold no place
        // anywhere, so without the invitation a new place needs, Redis has nothing to tell them.
        if (invite.required() && request.identity() == null && request.presented() == null) {
            return Mono.just(refused(request.invitation()));
        }
        // What a new place costs: the product's proof of work and a place within the caller's join
        // limits, with or without an old token. Checked here, without counting; the join script
        // says whether the request would make a place (a shopper who holds one pays nothing), and
        // only a place made counts. A caller with neither token nor identity holds nothing
        // anywhere, so it is answered at once, without Redis.
        boolean holdsNothing = !caller.hasToken() && caller.anonymous();
        JoinGate.Outcome proof = proveJoin(request, caller);
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
        long limitedFor = joinLimit(caller, request);
        if (limitedFor > 0 && holdsNothing) {
            return Mono.just(tooManyJoins(limitedFor));
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
                        placeMade(caller, request);
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
        return whenRedisCannotAnswer(request, caller);
    }

    /** Whether the token names this end of the session (a token of the release before names none). */
    private static boolean namesSession(WaitToken token, long end) {
        return token.sessionEnd() != null && token.sessionEnd().toEpochMilli() == end;
    }

    /** The route's {@code on-redis-failure}: a 503, or a pass unchecked. */
    private static Admission whenRedisCannotAnswer(AdmissionRequest request, Caller caller) {
        if (request.policy().onRedisFailure() != RedisFailureMode.OPEN) {
            return new Admission.Unavailable();
        }
        Invite invite = invite(request.policy().invites(), request.invitation());
        // Failing open lets through who could have joined: a token holder, or a caller with the
        // invitation a new place needs (its use is not counted meanwhile).
        return invite.required() && !caller.hasToken() ? refused(request.invitation()) : new Admission.Unchecked();
    }

    /** What the caller brings to a join under the route's {@code invites}. */
    private static Invite invite(InviteMode mode, InvitationCheck check) {
        if (mode == InviteMode.OFF) {
            return Invite.NONE;
        }
        if (check instanceof InvitationCheck.Valid valid) {
            Invitation invitation = valid.invitation();
            return Invite.of(invitation.id(), invitation.uses(), invitation.expiresAt().toEpochMilli(),
                    mode == InviteMode.PRIORITY);
        }
        // An invitation that is refused is refused in either mode: its holder should hear so,
        // not be placed behind the invited without a word.
        return mode == InviteMode.REQUIRED || check instanceof InvitationCheck.Invalid ? Invite.REQUIRED
                : Invite.NONE;
    }

    /** A new place refused for want of a valid invitation: none brought, or the one brought is refused. */
    private static Admission.Rejected refused(InvitationCheck check) {
        if (check instanceof InvitationCheck.Invalid invalid) {
            return new Admission.Rejected(Refusal.INVITE_INVALID, invalid.reason(), false, 0);
        }
        return new Admission.Rejected(Refusal.INVITE_REQUIRED, null, false, 0);
    }

    /**
     * What the request shows towards the product's {@code join-challenge}, should it make a new
     * place: checked here, locally; the single use of a solution is the join script's to enforce.
     * The place where something that vouches for a place waives the challenge: a valid invitation does.
     */
    private JoinGate.Outcome proveJoin(AdmissionRequest request, Caller caller) {
        QueuePolicy policy = request.policy();
        return joinGate.check(request.productId(), policy.joinChallenge(), policy.powDifficulty(),
                request.challengeSolution(), request.waitTicket(), request.invited(), caller.anonymous(),
                network(request));
    }

    private static String network(AdmissionRequest request) {
        return ClientAddresses.network(request.clientAddress().get());
    }

    private static boolean binds(QueuePolicy policy) {
        return policy.bindToken() == BindToken.NETWORK;
    }

    /**
     * How long until the caller may make another place (0: now): the client address's limit and,
     * for an identified caller, the user's. Nothing is counted here.
     */
    private long joinLimit(Caller caller, AdmissionRequest request) {
        long wait = addressLimiter.check(network(request));
        if (wait == 0 && !caller.anonymous()) {
            wait = userLimiter.check(caller.userId());
        }
        return wait;
    }

    /** The request made a new place: it counts against the caller's join limits and its network's rate. */
    private void placeMade(Caller caller, AdmissionRequest request) {
        String network = network(request);
        addressLimiter.count(network);
        if (!caller.anonymous()) {
            userLimiter.count(caller.userId());
        }
        joinGate.placed(caller.productId(), network);
    }

    private static Admission.Rejected tooManyJoins(long waitMillis) {
        return new Admission.Rejected(Refusal.TOO_MANY_JOINS, null, false, Math.max(1, (waitMillis + 999) / 1000));
    }

    /**
     * The shop's answer to a request that ended nothing said what the product has left
     * ({@code Queue-Stock}), up or down. Redis believes it unless the request was forwarded before
     * the stock's last change; it is asked only when this instance's view of the line holds another
     * number, so a shop that sends the header with every page costs a script call per change, not
     * per page. Never fails: the next answer says it again.
     */
    public Mono<Void> stockSaid(String productId, long unitsLeft, long forwardedAt) {
        Stock known = local.stock(productId);
        if (known != null && unitsLeft == known.left()) {
            return Mono.empty();
        }
        return places.stockSaid(productId, unitsLeft, forwardedAt).then().onErrorResume(error -> {
            log.debug("Could not note the stock the shop said for product " + productId + ": " + error);
            return Mono.empty();
        });
    }

    /**
     * @param claim the id of the completion claim the join took if it answers active, else {@code null}
     * @param presentedToken the caller's token when its answer comes from this instance's memory
     *                       (it still says the same, so it is not signed again), else {@code null}
     * @param limitedFor how long until the caller may make another place (0: now)
     */
    private Admission decide(Caller caller, Joined joined, AdmissionRequest request, String claim,
            String presentedToken, long limitedFor) {
        QueuePolicy policy = request.policy();
        String routeId = request.routeId();
        InvitationCheck invitation = request.invitation();
        Placement placement = joined.placement();
        if (joined.enqueued()) {
            events.joined(caller.productId(), routeId, caller.userId(), placement.rank());
            if (joined.ticket() != null && joined.ticket() < 0) {
                // Before the answer leaves: a rank this instance tells the main line next counts it.
                local.invitedJoined(caller.productId(), 1);
            }
        }
        switch (placement.state()) {
            case ACTIVE:
                return active(caller, joined, request, claim);
            case CHALLENGE_USED:
                // A wait ticket used already (another instance took it, or a replay) is spent here too.
                return new Admission.Challenged(Refusal.CHALLENGE_USED, null,
                        joinGate.fresh(caller.productId(), policy.powDifficulty(), network(request),
                                request.challengeSolution() == null));
            case CHALLENGE_REQUIRED:
                return new Admission.Challenged(Refusal.CHALLENGE_REQUIRED, null,
                        joinGate.fresh(caller.productId(), policy.powDifficulty(), network(request), false));
            case JOIN_LIMITED:
                return tooManyJoins(limitedFor);
            case SESSION_ENDED:
                return new Admission.Rejected(Refusal.SESSION_ENDED, null, false, 0);
            case COMPLETING:
                return new Admission.Rejected(Refusal.COMPLETION_IN_PROGRESS, null, false, 0);
            case DRAINING:
                return new Admission.Rejected(Refusal.QUEUE_CLOSED, null, false, 60);
            case SALE_ENDED:
                return new Admission.Rejected(Refusal.SALE_ENDED, policy.closesAt() == null ? null
                        : "the sale of this product ended at " + policy.closesAt(), false, 0);
            case SOLD_OUT:
                return new Admission.Rejected(Refusal.SOLD_OUT, null, false, 0, joined.ticket() != null);
            case ROOM_CLOSED:
                return new Admission.Rejected(Refusal.ROOM_CLOSED, null, false,
                        RetryAfter.whileClosed(policy.abandonAfter()));
            case INVITE_REQUIRED:
                return refused(invitation);
            case INVITE_USED:
                return new Admission.Rejected(Refusal.INVITE_USED, null, false, 0);
            default:
                return waiting(caller, joined, request, presentedToken);
        }
    }

    private Admission active(Caller caller, Joined joined, AdmissionRequest request, String claim) {
        String routeId = request.routeId();
        if (!caller.mayForward()) {
            // The place of a signed-in shopper is let through only with that shopper's identity;
            // their token alone was enough to wait.
            return new Admission.Rejected(Refusal.WRONG_USER,
                    "this place belongs to a signed-in shopper: sign in as them to go through", false, 0);
        }
        activeCache.remember(caller.productId(), caller.userId());
        // A token that says "waiting" (jat) on an active caller: its wait ended since the last
        // answer. Measured once, because the token issued now no longer says so. A new ticket in
        // this very call means the old wait was lost (expired, left), not ended.
        boolean waitEnded = caller.joinedAt() != null && !joined.enqueued();
        if (waitEnded) {
            events.admitted(caller.productId(), routeId, caller.userId(),
                    nonNegative(Duration.between(caller.joinedAt(), tokens.now())));
        }
        // A token that says "waiting", is of another epoch, or names another end of the session
        // (or none: signed by the release before) is signed again: after a loss it proves the session.
        Long sessionEnd = joined.sessionEnd();
        boolean needsToken = !caller.hasToken() || caller.joinedAt() != null || reclaims.ofAnotherEpoch(caller.token())
                || (sessionEnd != null && !namesSession(caller.token(), sessionEnd));
        return new Admission.Active(caller, needsToken ? issue(caller, null, null, request,
                sessionEnd == null ? null : Instant.ofEpochMilli(sessionEnd)) : null, claim, joined.enqueued());
    }

    private Admission waiting(Caller caller, Joined joined, AdmissionRequest request,
            String presentedToken) {
        QueuePolicy policy = request.policy();
        Placement placement = joined.placement();
        // A fresh token with every answer from Redis, so a user who keeps polling never outlives
        // it. It keeps the join time across answers; a new ticket starts the wait anew.
        String token = presentedToken;
        if (token == null) {
            Instant joinedAt = joined.enqueued() || caller.joinedAt() == null ? tokens.now() : caller.joinedAt();
            token = issue(caller, joinedAt, joined.ticket(), request, null);
        }
        if (placement.state() == Placement.State.PRE_QUEUE) {
            return new Admission.Waiting(caller, placement.rank(), token, presentedToken == null, null, policy.opensAt(),
                    RetryAfter.beforeOpening(Duration.between(tokens.now(), policy.opensAt()), policy.abandonAfter()),
                    joined.seedCommitment(),
                    RetryAfter.comeBackBy(policy.opensAt(), policy.abandonAfter(), policy.arrivalTtl()), joined.stock());
        }
        Long estimate = WaitEstimate.seconds(placement.rank(), placement.admissionRate());
        return new Admission.Waiting(caller, placement.rank(), token, presentedToken == null, estimate, null,
                RetryAfter.of(placement.rank(), estimate, policy.abandonAfter()), joined.seedCommitment(), null,
                joined.stock());
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

    private static Duration nonNegative(Duration duration) {
        return duration.isNegative() ? Duration.ZERO : duration;
    }
}
