package io.queuegate.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import io.queuegate.invites.InvitationKeys;
import io.queuegate.invites.InvitationMinter;
import io.queuegate.invites.InvitationVerifier;

import org.springframework.boot.convert.DurationStyle;

/**
 * Mints invitations from the command line, with the runnable gateway's jar. The HS256 secret is
 * read from the environment ({@code QUEUEGATE_INVITES_SECRET}), never from the command line, where
 * shells keep it:
 * <pre>
 * QUEUEGATE_INVITES_SECRET=... java -cp queuegate-gateway-app-exec.jar -Dloader.main=io.queuegate.tools.MintInvite \
 *     org.springframework.boot.loader.launch.PropertiesLauncher --product 42 --expires-in 7d [--user alice] [--uses 1] [--count 100]
 * ... --private-key shop-invites.pem [--key-id 2026-12] --product '*' --expires-in 2h
 * </pre>
 * Each invitation is printed on a line of its own. A shop's Java code mints with
 * {@link InvitationMinter} itself.
 */
public final class MintInvite {

    /** The environment variable the HS256 secret is read from. */
    public static final String SECRET_VARIABLE = "QUEUEGATE_INVITES_SECRET";

    private static final String USAGE = """
            usage: MintInvite --product <id|*> (--expires-in <7d|12h|PT30M> | --expires-at <ISO-8601 instant>)
                              [--user <sub>] [--uses <n, default 1>] [--id <jti, default random>] [--count <n>]
                              [--private-key <PKCS#8 PEM file> [--key-id <kid>]]
            signs with HS256 and the secret in $%s unless --private-key names an RSA (RS256) or
            EC P-256 (ES256) private key""".formatted(SECRET_VARIABLE);

    private MintInvite() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), Clock.systemUTC(), System.out, System.err));
    }

    /** The command, with its surroundings given: returns the exit status. */
    static int run(String[] args, Map<String, String> environment, Clock clock, PrintStream out, PrintStream err) {
        try {
            Map<String, String> options = options(args);
            String productId = required(options, "product");
            Instant expiresAt = expiry(options, clock);
            long uses = Long.parseLong(options.getOrDefault("uses", "1"));
            int count = Integer.parseInt(options.getOrDefault("count", "1"));
            if (uses < 1 || uses > InvitationVerifier.MAX_USES || count < 1) {
                throw new IllegalArgumentException("--uses must be 1 to " + InvitationVerifier.MAX_USES
                        + " and --count at least 1");
            }
            if (count > 1 && options.containsKey("id")) {
                throw new IllegalArgumentException("--id names one invitation: leave it out with --count");
            }
            Key key = key(options, environment);
            for (int i = 0; i < count; i++) {
                String id = options.getOrDefault("id", UUID.randomUUID().toString());
                out.println(InvitationMinter.mint(key, options.get("key-id"), productId, options.get("user"), uses,
                        expiresAt, id));
            }
            return 0;
        }
        catch (IllegalArgumentException ex) {
            err.println(ex.getMessage());
            err.println(USAGE);
            return 2;
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("options come as '--name value'; '" + args[i] + "' has no value");
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    private static Instant expiry(Map<String, String> options, Clock clock) {
        if (options.containsKey("expires-at")) {
            return Instant.parse(options.get("expires-at"));
        }
        Duration lifetime = DurationStyle.detectAndParse(required(options, "expires-in"));
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("--expires-in must be positive");
        }
        return clock.instant().plus(lifetime);
    }

    private static Key key(Map<String, String> options, Map<String, String> environment) {
        String file = options.get("private-key");
        if (file != null) {
            try {
                return InvitationMinter.privateKey(Files.readString(Path.of(file), StandardCharsets.US_ASCII));
            }
            catch (IOException ex) {
                throw new IllegalArgumentException("cannot read " + file + ": " + ex.getMessage());
            }
        }
        String secret = environment.get(SECRET_VARIABLE);
        if (secret == null || secret.getBytes(StandardCharsets.UTF_8).length < InvitationKeys.MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("set " + SECRET_VARIABLE + " to the gateway's queuegate.invites.secret "
                    + "(at least " + InvitationKeys.MIN_SECRET_BYTES + " bytes), or give --private-key");
        }
        return InvitationMinter.secretKey(secret);
    }
}
