package io.queuegate.config;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The {@code queue} block of a route's metadata, or a per-product override under
 * {@code queuegate.products.<id>}: every field may be absent, and absent fields fall back to
 * the route's block and then to the defaults of {@link QueuePolicy}.
 *
 * @param maxActive users admitted at once, per product
 * @param sessionTtl an admitted user's time to finish
 * @param promotion how waiting users are promoted
 * @param completeOn the request ({@code "METHOD /path/{productId}/..."}) whose 2xx ends a session
 * @param onRedisFailure what the route does while Redis cannot answer
 * @param productIdVariable the route path variable that holds the product id
 * @param productIdPattern a regular expression every product id of the route must match
 *                         whole (else 400 {@code invalid_product}), so one product has one spelling
 * @param opensAt when a scheduled sale opens; before it, callers wait in a pre-queue that is
 *                shuffled at opening
 * @param closesAt when a sale ends; afterwards new callers are turned away (410)
 * @param maxAdmitPerMinute the fastest promotion may admit, evenly spread, beside max-active
 * @param abandonAfter how long a waiter may go unseen (no poll, no live connection) before their
 *                     place is given up; {@code 0} keeps places forever
 * @param arrivalTtl how long a newly admitted user has to arrive before the place goes on
 * @param displayName what shoppers and operators call the product ("Limited sneakers"): the
 *                    waiting page and the console show it instead of the product id
 * @param invites what invitations do: nothing, let only the invited in, or serve them first
 * @param joinChallenge what a join without a token must show: nothing, or a solved proof of work
 * @param powDifficulty the proof of work's expected number of SHA-256 hashes
 * @param bindToken whether a wait token only works from the network it was issued to
 * @param stock the units the product has to sell: set when it first comes or changes (a restock);
 *              the shop's {@code Queue-Stock} header lowers it, completions count it down
 * @param unitsPerShopper how many units one admission may buy
 * @param productIdCase whether ids that differ only in letter case are one product
 * @param completeOnRedirect what a 3xx answer to the {@code complete-on} request is: a leave or a sale
 * @param websocket what a WebSocket upgrade on the route gets (read from the route only)
 * @param displayNames what the shopper pages call the product in a language, by language tag
 */
public record QueueSettings(
        Integer maxActive,
        Duration sessionTtl,
        Promotion promotion,
        String completeOn,
        RedisFailureMode onRedisFailure,
        String productIdVariable,
        String productIdPattern,
        Instant opensAt,
        Instant closesAt,
        Integer maxAdmitPerMinute,
        Duration abandonAfter,
        Duration arrivalTtl,
        String displayName,
        InviteMode invites,
        JoinChallenge joinChallenge,
        Integer powDifficulty,
        BindToken bindToken,
        Long stock,
        Integer unitsPerShopper,
        ProductIdCase productIdCase,
        CompletionRedirect completeOnRedirect,
        WebSocketUpgrade websocket,
        Map<String, String> displayNames) {

    /** Settings with nothing set. */
    // One constructor only: Boot binds route metadata and product overrides through it.
    public static final QueueSettings EMPTY = new QueueSettings(null, null, null, null, null, null, null, null, null,
            null, null, null, null, null, null, null, null, null, null, null, null, null, null);

    /** These settings, with each field that {@code override} sets replaced by its value. */
    public QueueSettings overriddenBy(QueueSettings override) {
        if (override == null) {
            return this;
        }
        return new QueueSettings(
                pick(override.maxActive, maxActive),
                pick(override.sessionTtl, sessionTtl),
                pick(override.promotion, promotion),
                pick(override.completeOn, completeOn),
                pick(override.onRedisFailure, onRedisFailure),
                pick(override.productIdVariable, productIdVariable),
                pick(override.productIdPattern, productIdPattern),
                pick(override.opensAt, opensAt),
                pick(override.closesAt, closesAt),
                pick(override.maxAdmitPerMinute, maxAdmitPerMinute),
                pick(override.abandonAfter, abandonAfter),
                pick(override.arrivalTtl, arrivalTtl),
                pick(override.displayName, displayName),
                pick(override.invites, invites),
                pick(override.joinChallenge, joinChallenge),
                pick(override.powDifficulty, powDifficulty),
                pick(override.bindToken, bindToken),
                pick(override.stock, stock),
                pick(override.unitsPerShopper, unitsPerShopper),
                pick(override.productIdCase, productIdCase),
                pick(override.completeOnRedirect, completeOnRedirect),
                pick(override.websocket, websocket),
                // A name given for one product replaces the names of every language, so a route's
                // name in Korean never stands for a product the override renamed.
                override.displayNames != null ? override.displayNames
                        : override.displayName != null ? null : displayNames);
    }

    private static <T> T pick(T preferred, T fallback) {
        return preferred != null ? preferred : fallback;
    }
}
