package io.queuegate.config;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Checks several of {@link QueueGateProperties}' groups share. */
final class PropertyChecks {

    private PropertyChecks() {
    }

    static void requirePositive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be positive, was " + value);
        }
    }

    /** A secret long enough for HS256 ({@link QueueGateProperties.Token#MIN_SECRET_BYTES}). */
    static void requireLength(String property, String value) {
        int length = value.getBytes(StandardCharsets.UTF_8).length;
        if (length < QueueGateProperties.Token.MIN_SECRET_BYTES) {
            throw new IllegalArgumentException(property + " must be at least " + QueueGateProperties.Token.MIN_SECRET_BYTES
                    + " bytes for HS256, was " + length);
        }
    }

    /** Else a wait token's signature would pass for an invitation's, and the other way round. */
    static void requireOwnInvitationSecret(QueueGateProperties.Invites invites, QueueGateProperties.Token token) {
        if (invites.secret() != null && (invites.secret().equals(token.secret())
                || token.previousSecrets().contains(invites.secret()))) {
            throw new IllegalArgumentException("queuegate.invites.secret must differ from queuegate.token.secret "
                    + "and its previous secrets");
        }
    }

    /** {@code queuegate.console}: a chart of at most {@code maxPoints} points a product. */
    static void requireConsole(Duration sampleInterval, Duration history, int maxProducts, int maxPoints) {
        if (sampleInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("queuegate.console.sample-interval must be at least 1s, was "
                    + sampleInterval);
        }
        if (history.compareTo(sampleInterval) < 0) {
            throw new IllegalArgumentException("queuegate.console.history (" + history
                    + ") must be at least queuegate.console.sample-interval (" + sampleInterval + ")");
        }
        if (history.toMillis() / sampleInterval.toMillis() > maxPoints) {
            throw new IllegalArgumentException("queuegate.console.history / sample-interval must be at most "
                    + maxPoints + " points, was " + history.toMillis() / sampleInterval.toMillis());
        }
        if (maxProducts < 1) {
            throw new IllegalArgumentException("queuegate.console.max-products must be at least 1, was "
                    + maxProducts);
        }
    }
}
