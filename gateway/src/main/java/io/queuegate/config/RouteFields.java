package io.queuegate.config;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.queuegate.config.RouteField.AppliedBy;
import io.queuegate.config.RouteField.Format;

/**
 * Every field of a route's {@code queue} block, in {@link QueueSettings}' order: the one definition
 * of each. Adding a field is a line here, a component of {@link QueueSettings} and of
 * {@link QueuePolicy}, and its behaviour: in the gateway ({@link AppliedBy#GATEWAY}), or in the
 * scripts ({@link AppliedBy#SCRIPTS}: then a component of {@code store/ProductRules}, which puts it
 * on the wire by its name here, and Lua that reads it by that name). The tests then say where else
 * it must be written (the configuration reference's route table, which they check, and the chart's
 * schema, which they print as it must be). docs/design.md "Adding a route field" lists every file.
 */
public final class RouteFields {

    private static final String A_DURATION = "a Spring duration (500ms, 30s, 10m, 2h, ISO-8601 PT10M; a plain number "
            + "is milliseconds)";
    private static final String AN_INSTANT = "an ISO-8601 instant (2026-12-24T10:00:00Z, or with an offset: "
            + "2026-12-24T10:00:00+09:00)";

    public static final RouteField<Integer> MAX_ACTIVE = new RouteField<>("max-active", Integer.class, Format.ANY, 10,
            "10", 1L, null, true, AppliedBy.SCRIPTS, "Users admitted at once, per product; at least 1.");
    public static final RouteField<Duration> SESSION_TTL = new RouteField<>("session-ttl", Duration.class,
            Format.DURATION, Duration.ofMinutes(10), "10m", 1000L, null, true, AppliedBy.SCRIPTS,
            "An admitted user's time to finish: " + A_DURATION + ", at least 1s.");
    public static final RouteField<Promotion> PROMOTION = new RouteField<>("promotion", Promotion.class, Format.ANY,
            Promotion.PUBSUB, "pubsub", null, null, true, AppliedBy.SCRIPTS,
            "How waiting users move up (docs/promotion.md).");
    public static final RouteField<String> COMPLETE_ON = new RouteField<>("complete-on", String.class, Format.REQUEST,
            null, "none: sessions end by leave or expiry", null, null, true, AppliedBy.GATEWAY,
            "The request whose 2xx answer is a sale that ends the session, \"METHOD /path/pattern\" (\"POST "
                    + "/api/products/{productId}/orders\"), matched in any letter case and with a format suffix.");
    public static final RouteField<RedisFailureMode> ON_REDIS_FAILURE = new RouteField<>("on-redis-failure",
            RedisFailureMode.class, Format.ANY, RedisFailureMode.CLOSED, "closed", null, null, true, AppliedBy.GATEWAY,
            "While Redis cannot answer: closed answers 503, open forwards unchecked.");
    public static final RouteField<String> PRODUCT_ID_VARIABLE = new RouteField<>("product-id-variable", String.class,
            Format.NOT_BLANK, "productId", "productId", null, null, false, AppliedBy.GATEWAY,
            "The route's path variable that holds the product id.");
    public static final RouteField<String> PRODUCT_ID_PATTERN = new RouteField<>("product-id-pattern", String.class,
            Format.ANY, null, "none", null, null, false, AppliedBy.GATEWAY,
            "A Java regular expression every product id of the route must match whole, else 400 invalid_product.");
    public static final RouteField<Instant> OPENS_AT = new RouteField<>("opens-at", Instant.class, Format.INSTANT, null,
            "none: always open", null, null, true, AppliedBy.SCRIPTS,
            "When a scheduled sale opens: " + AN_INSTANT + "; before it, callers wait in a pre-queue shuffled at "
                    + "the opening.");
    public static final RouteField<Instant> CLOSES_AT = new RouteField<>("closes-at", Instant.class, Format.INSTANT,
            null, "none: never", null, null, true, AppliedBy.SCRIPTS,
            "When the sale ends: " + AN_INSTANT + ", after opens-at; afterwards new callers get 410.");
    public static final RouteField<Integer> MAX_ADMIT_PER_MINUTE = new RouteField<>("max-admit-per-minute",
            Integer.class, Format.ANY, 0, "0", 0L, null, true, AppliedBy.SCRIPTS,
            "The most admissions per minute, evenly spread, across all instances; 0 means no limit.");
    public static final RouteField<Duration> ABANDON_AFTER = new RouteField<>("abandon-after", Duration.class,
            Format.DURATION, Duration.ofSeconds(60), "60s", 0L, null, true, AppliedBy.SCRIPTS,
            "How long a waiter may go unseen before losing the place: " + A_DURATION + "; 0 means never, else at "
                    + "least 3s.");
    public static final RouteField<Duration> ARRIVAL_TTL = new RouteField<>("arrival-ttl", Duration.class,
            Format.DURATION, Duration.ofSeconds(60), "60s", 1000L, null, true, AppliedBy.SCRIPTS,
            "How long a newly admitted user has to arrive: " + A_DURATION + ", at least 1s, never more than "
                    + "session-ttl.");
    public static final RouteField<String> DISPLAY_NAME = new RouteField<>("display-name", String.class,
            Format.DISPLAY_NAME, null, "none: the product id", null, null, true, AppliedBy.GATEWAY,
            "What the waiting page and the console call the product, at most 80 characters, not blank, no line "
                    + "breaks or tabs.");
    public static final RouteField<InviteMode> INVITES = new RouteField<>("invites", InviteMode.class, Format.ANY,
            InviteMode.OFF, "off", null, null, true, AppliedBy.GATEWAY,
            "What invitations do: off, required or priority; needs a key under queuegate.invites.* (extraConfig). "
                    + "An unquoted off reads as false, which the gateway takes as off.");
    public static final RouteField<JoinChallenge> JOIN_CHALLENGE = new RouteField<>("join-challenge",
            JoinChallenge.class, Format.ANY, JoinChallenge.NONE, "none (the runnable gateway sets anonymous)", null,
            null, true, AppliedBy.GATEWAY,
            "What a request must show before it takes a new place in line: none; pow, a solved proof of work; or "
                    + "anonymous, the same from shoppers with no identity only.");
    public static final RouteField<Integer> POW_DIFFICULTY = new RouteField<>("pow-difficulty", Integer.class,
            Format.ANY, 200_000, "200000", 1L, 50_000_000L, true, AppliedBy.GATEWAY,
            "With join-challenge pow or anonymous, the expected number of SHA-256 hashes a solution takes, 1 to "
                    + "50000000.");
    public static final RouteField<BindToken> BIND_TOKEN = new RouteField<>("bind-token", BindToken.class, Format.ANY,
            BindToken.NONE, "none", null, null, true, AppliedBy.GATEWAY,
            "What a wait token is bound to: none, or network (the IPv4 /24 or IPv6 /64 it was issued to).");
    public static final RouteField<Long> STOCK = new RouteField<>("stock", Long.class, Format.ANY, null,
            "none (unknown until the shop's Queue-Stock header or an operator says it)", 0L, null, true,
            AppliedBy.SCRIPTS,
            "The units the product has to sell, admitted carts included; nobody is admitted beyond what it serves, "
                    + "0 is sold out. Applied when it first comes or changes.");
    public static final RouteField<Integer> UNITS_PER_SHOPPER = new RouteField<>("units-per-shopper", Integer.class,
            Format.ANY, 1, "1", 1L, null, true, AppliedBy.SCRIPTS,
            "How many units one admission may buy, for counting the stock; at least 1.");
    public static final RouteField<ProductIdCase> PRODUCT_ID_CASE = new RouteField<>("product-id-case",
            ProductIdCase.class, Format.ANY, ProductIdCase.FOLD, "fold", null, null, false, AppliedBy.GATEWAY,
            "Whether ids that differ only in letter case are one product: fold (RD1 is rd1, as a shop that reads "
                    + "paths in any case serves them) or keep (for shops whose ids and routes are case-sensitive).");
    public static final RouteField<CompletionRedirect> COMPLETE_ON_REDIRECT = new RouteField<>("complete-on-redirect",
            CompletionRedirect.class, Format.ANY, CompletionRedirect.LEAVE, "leave", null, null, true,
            AppliedBy.GATEWAY,
            "What a 3xx answer to the complete-on request is: leave (the session ends, no stock counted: a refused "
                    + "order sent back to the cart) or sale (the shop redirects only after a successful order).");

    public static final RouteField<WebSocketUpgrade> WEBSOCKET = new RouteField<>("websocket", WebSocketUpgrade.class,
            Format.ANY, WebSocketUpgrade.REFUSE, "refuse", null, null, false, AppliedBy.GATEWAY,
            "What a WebSocket upgrade on the route gets: refuse answers 400 websocket_not_allowed; allow admits it as "
                    + "any request (queued while the caller waits) and closes the connection when the session ends.");

    @SuppressWarnings({ "rawtypes", "unchecked" })
    public static final RouteField<Map> DISPLAY_NAMES = new RouteField<>("display-names", Map.class,
            Format.DISPLAY_NAMES, null, "none: display-name in every language", null, null, true, AppliedBy.GATEWAY,
            "What the shopper pages call the product in a language, by language tag (ko: 한정판 운동화); each name as "
                    + "display-name's. A page in another language shows display-name. A product's override that sets "
                    + "display-name without display-names drops the route's.");

    /** Every field, in {@link QueueSettings}' order. */
    public static final List<RouteField<?>> ALL = List.of(MAX_ACTIVE, SESSION_TTL, PROMOTION, COMPLETE_ON,
            ON_REDIS_FAILURE, PRODUCT_ID_VARIABLE, PRODUCT_ID_PATTERN, OPENS_AT, CLOSES_AT, MAX_ADMIT_PER_MINUTE,
            ABANDON_AFTER, ARRIVAL_TTL, DISPLAY_NAME, INVITES, JOIN_CHALLENGE, POW_DIFFICULTY, BIND_TOKEN, STOCK,
            UNITS_PER_SHOPPER, PRODUCT_ID_CASE, COMPLETE_ON_REDIRECT, WEBSOCKET, DISPLAY_NAMES);

    /** The fields the scripts obey, in {@link #ALL}'s order: the rules that travel to Redis. */
    public static final List<RouteField<?>> SCRIPTS = ALL.stream()
            .filter(field -> field.appliedBy() == AppliedBy.SCRIPTS).toList();

    private RouteFields() {
    }
}
