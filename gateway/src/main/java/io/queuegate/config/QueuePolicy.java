package io.queuegate.config;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.queuegate.config.CompletionRule;
import io.queuegate.store.ProductRules;

/**
 * The complete, validated queue settings that apply to one product on one route.
 *
 * @param maxActive users admitted at once; default 10
 * @param sessionTtl an admitted user's time to finish; default 10 minutes
 * @param promotion how waiting users are promoted; default {@link Promotion#PUBSUB}
 * @param completeOn the request whose 2xx answer is a sale that ends the session; default none
 * @param onRedisFailure behaviour while Redis cannot answer; default {@link RedisFailureMode#CLOSED}
 * @param productIdVariable the path variable holding the product id; default {@code productId}
 * @param productIdPattern what every product id must match whole, or {@code null} (the default:
 *                         then {@code 042} and {@code 42} are two products)
 * @param opensAt when the sale opens, or {@code null} for a queue that is always open
 * @param closesAt when the sale ends, or {@code null} for never
 * @param maxAdmitPerMinute the most admissions per minute; 0 (default) for no limit
 * @param abandonAfter how long a waiter may go unseen before losing the place; default 60 s,
 *                     {@link Duration#ZERO} for never
 * @param arrivalTtl how long a newly admitted user has to arrive; default 60 s, never more
 *                   than the session
 * @param displayName what the waiting page and the console call the product, or {@code null}
 *                    (the default: the product id)
 * @param invites what invitations do; default {@link InviteMode#OFF}
 * @param joinChallenge what a join without a token must show; default {@link JoinChallenge#NONE}
 * @param powDifficulty the expected number of SHA-256 hashes that solve a join's proof of work;
 *                      default {@value #DEFAULT_POW_DIFFICULTY}
 * @param bindToken what a wait token is bound to; default {@link BindToken#NONE}
 * @param stock the units the product has to sell, set when it first comes or changes, or
 *              {@code null} (the default: unknown until the shop's {@code Queue-Stock} header or an
 *              operator says it)
 * @param unitsPerShopper how many units one admission may buy; default 1
 * @param productIdCase whether ids that differ only in letter case are one product; default
 *                      {@link ProductIdCase#FOLD}
 * @param completeOnRedirect what a 3xx answer to the {@code complete-on} request is; default
 *                           {@link CompletionRedirect#LEAVE}
 * @param websocket what a WebSocket upgrade gets; default {@link WebSocketUpgrade#REFUSE} (read
 *                  from the route only: a product's override of it is ignored)
 * @param displayNames what the shopper pages call the product in a language, by lower-case
 *                     language tag ({@code ko}, {@code pt-br}), or {@code null} (the default: none)
 */
public record QueuePolicy(
        int maxActive,
        Duration sessionTtl,
        Promotion promotion,
        CompletionRule completeOn,
        RedisFailureMode onRedisFailure,
        String productIdVariable,
        Pattern productIdPattern,
        Instant opensAt,
        Instant closesAt,
        int maxAdmitPerMinute,
        Duration abandonAfter,
        Duration arrivalTtl,
        String displayName,
        InviteMode invites,
        JoinChallenge joinChallenge,
        int powDifficulty,
        BindToken bindToken,
        Long stock,
        int unitsPerShopper,
        ProductIdCase productIdCase,
        CompletionRedirect completeOnRedirect,
        WebSocketUpgrade websocket,
        Map<String, String> displayNames) {

    // The defaults and bounds are RouteFields': named here for the code that needs one.
    public static final int DEFAULT_MAX_ACTIVE = RouteFields.MAX_ACTIVE.defaultValue();
    public static final Duration DEFAULT_SESSION_TTL = RouteFields.SESSION_TTL.defaultValue();
    public static final Promotion DEFAULT_PROMOTION = RouteFields.PROMOTION.defaultValue();
    public static final RedisFailureMode DEFAULT_ON_REDIS_FAILURE = RouteFields.ON_REDIS_FAILURE.defaultValue();
    public static final String DEFAULT_PRODUCT_ID_VARIABLE = RouteFields.PRODUCT_ID_VARIABLE.defaultValue();
    public static final Duration DEFAULT_ABANDON_AFTER = RouteFields.ABANDON_AFTER.defaultValue();
    public static final Duration DEFAULT_ARRIVAL_TTL = RouteFields.ARRIVAL_TTL.defaultValue();
    /** About a second in a phone's browser (bench/results/pow.md); a bot pays it for every join. */
    public static final int DEFAULT_POW_DIFFICULTY = RouteFields.POW_DIFFICULTY.defaultValue();
    /** Beyond this a phone would work for minutes; the challenge's number must also fit an int. */
    public static final int MAX_POW_DIFFICULTY = RouteFields.POW_DIFFICULTY.maximum().intValue();

    /**
     * Shortest abandon-after: waiters are told to ask again within a third of it, and clients
     * cannot keep up with much less than a second between polls.
     */
    public static final Duration MIN_ABANDON_AFTER = Duration.ofSeconds(3);

    /** Longest display-name: a page title and a console card still show it whole. */
    public static final int MAX_DISPLAY_NAME = 80;

    public QueuePolicy {
        if (maxActive < RouteFields.MAX_ACTIVE.minimum()) {
            throw new IllegalArgumentException("max-active must be at least 1, was " + maxActive);
        }
        if (sessionTtl.toMillis() < RouteFields.SESSION_TTL.minimum()) {
            throw new IllegalArgumentException("session-ttl must be at least 1s, was " + sessionTtl);
        }
        if (productIdVariable.isBlank()) {
            throw new IllegalArgumentException("product-id-variable must not be blank");
        }
        if (opensAt != null && closesAt != null && !closesAt.isAfter(opensAt)) {
            throw new IllegalArgumentException("closes-at (" + closesAt + ") must be after opens-at (" + opensAt + ")");
        }
        if (maxAdmitPerMinute < RouteFields.MAX_ADMIT_PER_MINUTE.minimum()) {
            throw new IllegalArgumentException("max-admit-per-minute must not be negative, was " + maxAdmitPerMinute);
        }
        if (!abandonAfter.isZero() && abandonAfter.compareTo(MIN_ABANDON_AFTER) < 0) {
            throw new IllegalArgumentException("abandon-after must be 0 (never) or at least " + MIN_ABANDON_AFTER.toSeconds()
                    + "s, was " + abandonAfter);
        }
        if (arrivalTtl.toMillis() < RouteFields.ARRIVAL_TTL.minimum()) {
            throw new IllegalArgumentException("arrival-ttl must be at least 1s, was " + arrivalTtl);
        }
        if (powDifficulty < RouteFields.POW_DIFFICULTY.minimum() || powDifficulty > MAX_POW_DIFFICULTY) {
            throw new IllegalArgumentException("pow-difficulty must be between 1 and " + MAX_POW_DIFFICULTY
                    + " (the expected number of hashes), was " + powDifficulty);
        }
        if (stock != null && stock < RouteFields.STOCK.minimum()) {
            throw new IllegalArgumentException("stock must not be negative, was " + stock);
        }
        if (unitsPerShopper < RouteFields.UNITS_PER_SHOPPER.minimum()) {
            throw new IllegalArgumentException("units-per-shopper must be at least 1, was " + unitsPerShopper);
        }
        if (arrivalTtl.compareTo(sessionTtl) > 0) {
            arrivalTtl = sessionTtl;
        }
        displayName = checkDisplayName(displayName);
        displayNames = checkDisplayNames(displayNames);
    }

    /**
     * The names by language, keys as lower-case language tags; {@code null} for none. Fails on a
     * key that is no language tag, or on a name display-name would refuse.
     */
    public static Map<String, String> checkDisplayNames(Map<String, String> displayNames) {
        if (displayNames == null || displayNames.isEmpty()) {
            return null;
        }
        Map<String, String> checked = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : displayNames.entrySet()) {
            String key = entry.getKey() == null ? "" : entry.getKey().strip();
            Locale language = Locale.forLanguageTag(key);
            if (language.getLanguage().isEmpty() || !language.toLanguageTag().equalsIgnoreCase(key)) {
                throw new IllegalArgumentException("display-names: '" + key + "' is not a language tag (ko, en, pt-BR)");
            }
            String name;
            try {
                name = checkDisplayName(entry.getValue() == null ? "" : entry.getValue());
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(ex.getMessage().replaceFirst("^display-name", "display-names." + key),
                        ex);
            }
            if (checked.put(language.toLanguageTag().toLowerCase(Locale.ROOT), name) != null) {
                throw new IllegalArgumentException("display-names: the language '" + key + "' is given twice");
            }
        }
        return Collections.unmodifiableMap(checked);
    }

    /**
     * What a page in {@code locale} calls the product: its name in that language and region
     * ({@code pt-br}), else in that language ({@code pt}), else display-name; {@code null} when
     * none is given.
     */
    public String displayName(Locale locale) {
        return DisplayNames.in(displayNames, displayName, locale);
    }

    /** The name trimmed; {@code null} stays {@code null}. Fails on a blank, too long or control-character name. */
    static String checkDisplayName(String displayName) {
        if (displayName == null) {
            return null;
        }
        String name = displayName.strip();
        if (name.isEmpty()) {
            throw new IllegalArgumentException("display-name must not be blank; leave it out to show the product id");
        }
        if (name.codePointCount(0, name.length()) > MAX_DISPLAY_NAME) {
            throw new IllegalArgumentException("display-name must be at most " + MAX_DISPLAY_NAME
                    + " characters, was " + name.codePointCount(0, name.length()));
        }
        if (name.codePoints().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("display-name must not contain control characters (line breaks, tabs)");
        }
        return name;
    }

    /** Fills the unset fields of {@code settings} with the defaults and validates the result. */
    public static QueuePolicy from(QueueSettings settings) {
        String completeOn = RouteFields.COMPLETE_ON.or(settings.completeOn());
        return new QueuePolicy(
                RouteFields.MAX_ACTIVE.or(settings.maxActive()),
                RouteFields.SESSION_TTL.or(settings.sessionTtl()),
                RouteFields.PROMOTION.or(settings.promotion()),
                completeOn == null || completeOn.isBlank() ? CompletionRule.NONE : CompletionRule.parse(completeOn),
                RouteFields.ON_REDIS_FAILURE.or(settings.onRedisFailure()),
                RouteFields.PRODUCT_ID_VARIABLE.or(settings.productIdVariable()),
                compile(RouteFields.PRODUCT_ID_PATTERN.or(settings.productIdPattern())),
                RouteFields.OPENS_AT.or(settings.opensAt()),
                RouteFields.CLOSES_AT.or(settings.closesAt()),
                RouteFields.MAX_ADMIT_PER_MINUTE.or(settings.maxAdmitPerMinute()),
                RouteFields.ABANDON_AFTER.or(settings.abandonAfter()),
                RouteFields.ARRIVAL_TTL.or(settings.arrivalTtl()),
                RouteFields.DISPLAY_NAME.or(settings.displayName()),
                RouteFields.INVITES.or(settings.invites()),
                RouteFields.JOIN_CHALLENGE.or(settings.joinChallenge()),
                RouteFields.POW_DIFFICULTY.or(settings.powDifficulty()),
                RouteFields.BIND_TOKEN.or(settings.bindToken()),
                RouteFields.STOCK.or(settings.stock()),
                RouteFields.UNITS_PER_SHOPPER.or(settings.unitsPerShopper()),
                RouteFields.PRODUCT_ID_CASE.or(settings.productIdCase()),
                RouteFields.COMPLETE_ON_REDIRECT.or(settings.completeOnRedirect()),
                RouteFields.WEBSOCKET.or(settings.websocket()),
                RouteFields.DISPLAY_NAMES.or(settings.displayNames()));
    }

    /** Compiles a route's product-id-pattern, failing with a message that names the field. */
    public static Pattern compile(String pattern) {
        return compile(pattern, 0);
    }

    /** {@link #compile(String)} with {@link Pattern} flags. */
    public static Pattern compile(String pattern, int flags) {
        if (pattern == null || pattern.isEmpty()) {
            return null;
        }
        try {
            return Pattern.compile(pattern, flags);
        }
        catch (PatternSyntaxException ex) {
            throw new IllegalArgumentException("product-id-pattern is not a regular expression: " + ex.getDescription()
                    + " in '" + pattern + "'");
        }
    }

    /**
     * The rules the scripts keep for the product, each by its route field's name
     * ({@link RouteFields#SCRIPTS}): what two routes that serve one product must agree on.
     */
    public Map<String, Object> scriptRules() {
        return rules().byName();
    }

    /** What the Redis scripts need to know of this policy. */
    public ProductRules rules() {
        return new ProductRules(maxActive, sessionTtl, promotion.id(), opensAt, closesAt, maxAdmitPerMinute,
                abandonAfter, arrivalTtl, unitsPerShopper, stock);
    }
}
