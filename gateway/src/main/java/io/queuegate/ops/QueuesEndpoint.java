package io.queuegate.ops;

import java.security.Principal;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.queuegate.admission.Identifiers;
import io.queuegate.admission.QueueRejection;
import io.queuegate.admission.WaitEstimate;
import io.queuegate.events.QueueEvents;
import io.queuegate.room.AdminAction;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueSnapshot;
import io.queuegate.store.RedisFailures;
import io.queuegate.room.RoomMode;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import reactor.core.publisher.Mono;

/**
 * {@code /actuator/queues}: every product's queue at a glance, one product in detail, and the
 * operator's levers ({@code max}, {@code mode}, {@code pause}, {@code resume}, {@code drain},
 * {@code undrain}).
 * Changes go to Redis through {@code admin.lua}, so every gateway instance follows at once. Not
 * exposed by default: it can stop a sale, so it belongs on the management port or behind
 * Spring Security.
 */
@Endpoint(id = "queues")
public class QueuesEndpoint {

    /** More digits than any stock. */
    private static final int MAX_STOCK_DIGITS = 12;

    /** The room modes, as {@code POST /actuator/queues/{productId}} takes them. */
    static final List<String> MODES = Arrays.stream(RoomMode.values()).map(RoomMode::code).toList();

    /** Far beyond any sensible max-active; keeps a typo from opening the gates entirely. */
    static final int MAX_CAPACITY = 1_000_000;

    private final ProductQueues store;
    private final QueueDirectory directory;
    private final QueueEvents events;

    public QueuesEndpoint(ProductQueues store, QueueDirectory directory, QueueEvents events) {
        this.store = store;
        this.directory = directory;
        this.events = events;
    }

    @ReadOperation
    public Mono<WebEndpointResponse<Object>> queues() {
        // Ranked with what was read of each: the busiest first.
        return directory.ranked(directory.max())
                .map(ranked -> view(ranked.productId(), ranked.snapshot()))
                .collectList()
                .map(views -> ok(new QueueList(views, views.size() >= directory.max())))
                .onErrorResume(RedisFailures::isRedisFailure, error -> Mono.just(unavailable()));
    }

    @ReadOperation
    public Mono<WebEndpointResponse<Object>> queue(@Selector String productId) {
        WebEndpointResponse<Object> invalid = checkProduct(productId);
        if (invalid != null) {
            return Mono.just(invalid);
        }
        return store.snapshot(productId)
                .map(snapshot -> snapshot.known() || directory.isConfigured(productId) ? ok(view(productId, snapshot))
                        : error(WebEndpointResponse.STATUS_NOT_FOUND, "unknown_product",
                                "Redis holds nothing for product " + productId))
                .onErrorResume(RedisFailures::isRedisFailure, error -> Mono.just(unavailable()));
    }

    /**
     * @param action {@code max}, {@code mode}, {@code pause}, {@code resume}, {@code drain},
     *               {@code undrain} or {@code stock}
     * @param value for {@code max}: the new max-active, or empty to go back to the route's; for
     *              {@code mode}: one of {@link RoomMode}'s codes;
     *              for {@code stock}: the units left (a restock reopens a sold-out line in its
     *              order), or empty for unknown
     * @param security who asks, for the audit log (the actuator passes it; its principal is
     *                 {@code null} without Spring Security)
     */
    @WriteOperation
    public Mono<WebEndpointResponse<Object>> control(@Selector String productId, String action,
            @Nullable String value, SecurityContext security) {
        WebEndpointResponse<Object> invalid = checkProduct(productId);
        if (invalid != null) {
            return Mono.just(invalid);
        }
        AdminAction adminAction = AdminAction.of(action);
        if (adminAction == null) {
            return Mono.just(error(WebEndpointResponse.STATUS_BAD_REQUEST, "invalid_action",
                    "action must be one of max, mode, pause, resume, drain, undrain, stock; was '" + action + "'"));
        }
        boolean takesValue = adminAction == AdminAction.MAX || adminAction == AdminAction.MODE
                || adminAction == AdminAction.STOCK;
        String applied = takesValue && value != null ? value.trim() : "";
        if (adminAction == AdminAction.MODE && RoomMode.of(applied) == null) {
            return Mono.just(error(WebEndpointResponse.STATUS_BAD_REQUEST, "invalid_value",
                    "value of mode must be one of " + String.join(", ", MODES) + "; was '" + value + "'"));
        }
        if ("max".equals(action) && !applied.isEmpty() && !isCapacity(applied)) {
            return Mono.just(error(WebEndpointResponse.STATUS_BAD_REQUEST, "invalid_value",
                    "value of max must be a whole number from 1 to " + MAX_CAPACITY
                            + ", or empty for the route's max-active; was '" + value + "'"));
        }
        if (adminAction == AdminAction.STOCK && !applied.isEmpty() && !applied.matches("[0-9]{1," + MAX_STOCK_DIGITS + "}")) {
            return Mono.just(error(WebEndpointResponse.STATUS_BAD_REQUEST, "invalid_value",
                    "value of stock must be a whole number of units (0 sells it out), or empty for unknown; was '"
                            + value + "'"));
        }
        Principal principal = security == null ? null : security.getPrincipal();
        String actor = principal == null ? null : principal.getName();
        return store.control(productId, adminAction, applied)
                .doOnNext(promoted -> events.operatorAction(productId, action, applied, promoted, actor))
                .flatMap(promoted -> store.snapshot(productId)
                        .map(snapshot -> ok(new ControlResult(action, applied, promoted, view(productId, snapshot)))))
                .onErrorResume(RedisFailures::isRedisFailure, error -> Mono.just(unavailable()));
    }

    private static boolean isCapacity(String value) {
        if (!value.matches("[0-9]{1,7}")) {
            return false;
        }
        int capacity = Integer.parseInt(value);
        return capacity >= 1 && capacity <= MAX_CAPACITY;
    }

    private static WebEndpointResponse<Object> checkProduct(String productId) {
        try {
            Identifiers.requireProductId(productId);
            return null;
        }
        catch (QueueRejection rejection) {
            return error(WebEndpointResponse.STATUS_BAD_REQUEST, "invalid_product", rejection.detail());
        }
    }

    /** The product as {@code /actuator/queues/{productId}} shows it (the console shows it so too). */
    public static QueueView view(String productId, QueueSnapshot snapshot) {
        return new QueueView(productId, snapshot.waiting(), snapshot.active(), snapshot.capacity(),
                snapshot.maxOverride(), Math.round(snapshot.admissionRate() * 1000) / 1000.0, snapshot.paused(),
                snapshot.draining(), WaitEstimate.seconds(snapshot.waiting(), snapshot.admissionRate()), snapshot.mode().code(),
                snapshot.opening() == null ? null : OpeningView.of(snapshot.opening()), snapshot.seedCommitment(),
                snapshot.abandoned(), StockView.of(snapshot.stock()));
    }

    private static WebEndpointResponse<Object> ok(Object body) {
        return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_OK);
    }

    private static WebEndpointResponse<Object> unavailable() {
        return error(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE, "queue_unavailable",
                "Redis did not answer; try again");
    }

    private static WebEndpointResponse<Object> error(int status, String code, String message) {
        return new WebEndpointResponse<>(Map.of("error", code, "message", message), status);
    }

    /**
     * @param truncated whether more products exist than {@code queuegate.metrics.max-products} lists
     */
    public record QueueList(List<QueueView> products, boolean truncated) {
    }

    /**
     * One product's queue.
     *
     * @param capacity the max-active that applies now (the operator's, else the route's as the
     *                 last join stored it); {@code null} before anyone joined
     * @param maxOverride the operator's max-active, or {@code null}
     * @param admissionRate admissions per second, measured over about a minute
     * @param lastInLineEtaSeconds the wait estimate of the last in line; {@code null} while
     *                             nobody waits or no rate is known
     * @param mode the room mode: one of {@link RoomMode}'s codes
     * @param opening the last opening of a scheduled sale, for audit; {@code null} before any
     * @param seedCommitment SHA-256 (hex) of the seed of the product's last pre-queue draw, shown
     *                       from its first ticket on, before the seed itself ({@code opening.seed})
     *                       is; {@code null} when it has none
     * @param abandoned shoppers dropped from the line as not seen for abandon-after when promotion
     *                  reached them, in total since Redis made the product's state: after an
     *                  opening, how many of the pre-queue never came back
     * @param stock what the product has left to sell; {@code null} while unknown
     */
    public record QueueView(String productId, long waiting, long active, Integer capacity, Integer maxOverride,
            double admissionRate, boolean paused, boolean draining, Long lastInLineEtaSeconds, String mode,
            OpeningView opening, String seedCommitment, long abandoned, StockView stock) {
    }

    /**
     * The stock as operators see it.
     *
     * @param left units not sold yet, the admitted shoppers' carts included
     * @param unitsPerShopper how many units one admission may buy
     * @param source who said it last: {@code shop} (its {@code Queue-Stock} header) or {@code set}
     *               (an operator, or the product's setting)
     * @param soldOutAt when it ran out, or {@code null} while some is left
     */
    public record StockView(long left, int unitsPerShopper, String source, Instant soldOutAt) {

        static StockView of(QueueSnapshot.StockState stock) {
            return stock == null ? null : new StockView(stock.left(), stock.unitsPerShopper(), stock.source(),
                    stock.soldOutAt() == null ? null : Instant.ofEpochMilli(stock.soldOutAt()));
        }
    }

    /**
     * How a sale's pre-queue was drawn, for audit: the tickets {@code firstTicket} to
     * {@code firstTicket + preQueued - 1} stand in line in the order of a permutation keyed by the
     * seed (see docs/drops.md), so anyone with the seed and the pre-queue's tickets
     * can recompute the order.
     *
     * @param seed the seed as the draw uses it: 64 hex digits (a decimal string for a draw opened by
     *             a release before commitments); {@code null} when nobody was in the pre-queue
     * @param firstTicket {@code null} when nobody was in the pre-queue
     */
    public record OpeningView(Instant opensAt, String seed, long preQueued, Long firstTicket) {

        static OpeningView of(QueueSnapshot.Opening opening) {
            boolean drawn = opening.seed() != null;
            return new OpeningView(Instant.ofEpochMilli(opening.opensAt()), opening.seed(), opening.preQueued(),
                    drawn ? opening.firstTicket() : null);
        }
    }

    /** What a {@code POST} did: the action, the users it admitted at once, and the queue after it. */
    public record ControlResult(String action, String value, long promoted, QueueView queue) {
    }
}
