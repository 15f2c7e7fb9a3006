package io.queuegate.admission;

import io.queuegate.config.QueuePolicy;
import io.queuegate.config.RedisFailureMode;
import io.queuegate.store.Placement;
import io.queuegate.store.QueueStore;
import io.queuegate.token.WaitTokenCodec;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import reactor.core.publisher.Mono;

/**
 * Decides what happens to a request on a protected route: join or find the caller's place in
 * Redis (one script call), and answer active, waiting or an error.
 */
public class AdmissionService {

    private static final Log log = LogFactory.getLog(AdmissionService.class);

    private final CallerResolver callers;
    private final QueueStore store;
    private final WaitTokenCodec tokens;

    public AdmissionService(CallerResolver callers, QueueStore store, WaitTokenCodec tokens) {
        this.callers = callers;
        this.store = store;
        this.tokens = tokens;
    }

    /**
     * @param productId the product id from the path
     * @param headerUserId the caller's user-id header, or {@code null}
     * @param presented the request's token, or {@code null}
     */
    public Mono<Admission> admit(String productId, String headerUserId, PresentedToken presented, QueuePolicy policy) {
        Caller caller;
        try {
            caller = callers.resolve(productId, headerUserId, presented);
        }
        catch (QueueRejection rejection) {
            return Mono.just(Admission.Rejected.of(rejection));
        }
        return store.join(caller.productId(), caller.userId(), policy.maxActive(), policy.sessionTtl(),
                        policy.promotion().id())
                .map(placement -> decide(caller, placement))
                .onErrorResume(RedisFailures::isRedisFailure, error -> {
                    log.warn("Redis could not answer for product " + productId + "; route fails "
                            + policy.onRedisFailure().name().toLowerCase() + ": " + error);
                    return Mono.just(policy.onRedisFailure() == RedisFailureMode.OPEN
                            ? new Admission.Unchecked() : new Admission.Unavailable());
                });
    }

    private Admission decide(Caller caller, Placement placement) {
        if (placement.state() == Placement.State.ACTIVE) {
            return new Admission.Active(caller, caller.hasToken() ? null : issue(caller));
        }
        // A fresh token with every waiting answer: a user who keeps polling never outlives it.
        return new Admission.Waiting(caller, placement.rank(), issue(caller));
    }

    private String issue(Caller caller) {
        return tokens.issue(caller.productId(), caller.userId(), caller.anonymous());
    }
}
