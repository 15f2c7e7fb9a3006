package io.queuegate.store;

import reactor.core.publisher.Mono;

/**
 * A script call asked again once after the product's recovery, when its script declined because
 * Redis lost or replaced the product's state ({@link StaleProductException}).
 */
final class RecoveringCalls {

    private final ProductRecovery recovery;
    private final DueIndex due;

    RecoveringCalls(ProductRecovery recovery, DueIndex due) {
        this.recovery = recovery;
        this.due = due;
    }

    /** {@code call}, asked again once after the product's recovery under {@code rules} ({@code null}: its stored ones). */
    <T> Mono<T> call(String productId, ProductRules rules, Mono<T> call) {
        return call.onErrorResume(StaleProductException.class,
                stale -> recovery.recover(productId, rules).then(call).doOnSuccess(done -> due.mark(productId)));
    }
}
