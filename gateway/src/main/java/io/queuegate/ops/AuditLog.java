package io.queuegate.ops;

import java.time.Duration;

import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.events.StockSource;
import io.queuegate.events.Trigger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The audit trail on the logger {@code io.queuegate.audit}: joins, admissions, completions, leaves,
 * expiries, shoppers dropped as abandoned and operator actions (with
 * who acted, when the request had a principal) at INFO, Redis failures at WARN. Each line is
 * readable as text ({@code event key=value ...}) and carries the same facts as SLF4J key-value
 * pairs, which Boot's structured formats ({@code logging.structured.format.console=ecs}) turn
 * into fields. Tokens are never logged; anonymous ids are shortened, since one is all it takes
 * to claim that caller's place where the user-id header is not under the shop's control.
 */
public class AuditLog implements QueueEvents {

    /** The logger's name, for {@code logging.level.io.queuegate.audit}. */
    public static final String LOGGER = "io.queuegate.audit";

    private static final Logger audit = LoggerFactory.getLogger(LOGGER);
    private static final String ANONYMOUS_PREFIX = "anon-";
    private static final int ANONYMOUS_SHOWN = 6;
    private static final int ACTOR_SHOWN = 128;

    @Override
    public void joined(String productId, String routeId, String userId, long rank) {
        log(Level.INFO, "join", "product", productId, "route", routeId, "user", user(userId), "rank", rank);
    }

    @Override
    public void promoted(String productId, Trigger trigger, long promoted) {
        log(Level.INFO, "promotion", "product", productId, "trigger", trigger.value(), "promoted", promoted);
    }

    @Override
    public void abandoned(String productId, Trigger trigger, long abandoned) {
        log(Level.INFO, "abandoned", "product", productId, "trigger", trigger.value(), "dropped", abandoned);
    }

    @Override
    public void admitted(String productId, String routeId, String userId, Duration waited) {
        log(Level.INFO, "admission", "product", productId, "route", routeId, "user", user(userId),
                "waitedSeconds", waited.toSeconds());
    }

    @Override
    public void completed(String productId, String routeId, String userId) {
        log(Level.INFO, "completion", "product", productId, "route", routeId, "user", user(userId));
    }

    @Override
    public void stockChanged(String productId, long unitsLeft, StockSource by, boolean soldOut) {
        log(Level.INFO, "stock", "product", productId, "left", unitsLeft, "by", by);
        if (soldOut) {
            log(Level.INFO, "sold_out", "product", productId, "by", by);
        }
    }

    @Override
    public void left(String productId, String userId) {
        log(Level.INFO, "leave", "product", productId, "user", user(userId));
    }

    @Override
    public void expired(String productId, String userId) {
        log(Level.INFO, "expiry", "product", productId, "user", user(userId));
    }

    @Override
    public void redisFailure(String productId, RedisOperation operation, Throwable error) {
        // The class and message only: a stack trace per failed call would flood an outage's log.
        log(Level.WARN, "redis_failure", "product", productId == null ? ProductTags.NONE : productId,
                "operation", operation.value(), "error", error.getClass().getSimpleName() + ": " + error.getMessage());
    }

    @Override
    public void operatorAction(String productId, String action, String value, long promoted) {
        operatorAction(productId, action, value, promoted, null);
    }

    @Override
    public void operatorAction(String productId, String action, String value, long promoted, String actor) {
        if (actor == null) {
            log(Level.INFO, "operator_action", "product", productId, "action", action, "value", value,
                    "promoted", promoted);
            return;
        }
        log(Level.INFO, "operator_action", "product", productId, "action", action, "value", value,
                "promoted", promoted, "by", actor(actor));
    }

    /**
     * A principal's name as one log field: control characters replaced, so a name cannot forge a
     * line of its own, and at most {@value #ACTOR_SHOWN} characters.
     */
    static String actor(String name) {
        StringBuilder out = new StringBuilder(Math.min(name.length(), ACTOR_SHOWN));
        name.codePoints().limit(ACTOR_SHOWN)
                .forEach(c -> out.appendCodePoint(Character.isISOControl(c) || Character.isWhitespace(c) ? '_' : c));
        return out.toString();
    }

    /** Anonymous ids shortened to a prefix: enough to follow one caller through the log. */
    static String user(String userId) {
        if (userId != null && userId.startsWith(ANONYMOUS_PREFIX)
                && userId.length() > ANONYMOUS_PREFIX.length() + ANONYMOUS_SHOWN) {
            return userId.substring(0, ANONYMOUS_PREFIX.length() + ANONYMOUS_SHOWN) + "...";
        }
        return userId;
    }

    private static void log(Level level, String event, Object... keyValues) {
        if (!audit.isEnabledForLevel(level)) {
            return;
        }
        StringBuilder message = new StringBuilder(event);
        LoggingEventBuilder line = audit.atLevel(level).addKeyValue("event", event);
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            String key = (String) keyValues[i];
            Object value = keyValues[i + 1];
            message.append(' ').append(key).append('=').append(value);
            line = line.addKeyValue(key, value);
        }
        line.setMessage(message.toString()).log();
    }
}
