package io.queuegate.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import io.queuegate.invites.Invitation;
import io.queuegate.invites.InvitationCheck;
import io.queuegate.invites.InvitationKeys;
import io.queuegate.invites.InvitationVerifier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The operators' command prints invitations the gateway accepts, and never takes a secret as an argument. */
class MintInviteTest {

    private static final String SECRET = "an-invitation-secret-long-enough-for-hs256-0123";
    private static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void printsOneInvitationALineThatTheGatewayAccepts() {
        int status = run(Map.of(MintInvite.SECRET_VARIABLE, SECRET), "--product", "42", "--expires-in", "2h", "--uses",
                "5", "--count", "3");

        assertThat(status).as(err.toString()).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).hasSize(3).doesNotHaveDuplicates();
        InvitationVerifier verifier = new InvitationVerifier(InvitationKeys.of(SECRET, null, null), CLOCK);
        for (String line : lines) {
            Invitation invitation = ((InvitationCheck.Valid) verifier.check(line, "42", null)).invitation();
            assertThat(invitation.uses()).isEqualTo(5);
            assertThat(invitation.expiresAt()).isEqualTo(NOW.plus(Duration.ofHours(2)));
        }
    }

    @Test
    void signsWithAPrivateKeyFileAndNamesItsKeyId(@TempDir Path dir) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair ec = generator.generateKeyPair();
        Path key = dir.resolve("shop-invites.pem");
        Files.writeString(key, pem("PRIVATE KEY", ec.getPrivate().getEncoded()));

        assertThat(run(Map.of(), "--private-key", key.toString(), "--key-id", "ec-2026", "--product", "*", "--user",
                "alice", "--expires-at", NOW.plus(Duration.ofHours(1)).toString())).as(err.toString()).isZero();

        String invitation = out.toString().strip();
        String header = new String(Base64.getUrlDecoder().decode(invitation.substring(0, invitation.indexOf('.'))),
                StandardCharsets.UTF_8);
        assertThat(header).contains("\"kid\":\"ec-2026\"").contains("\"alg\":\"ES256\"");
        InvitationVerifier verifier = new InvitationVerifier(
                InvitationKeys.of(null, pem("PUBLIC KEY", ec.getPublic().getEncoded()), null), CLOCK);
        assertThat(verifier.check(invitation, "9", "alice").valid()).isTrue();
        assertThat(verifier.check(invitation, "9", "mallory").valid()).isFalse();
    }

    @Test
    void withoutASecretInTheEnvironmentItSaysWhatToDo() {
        // Never on the command line, whose history shells keep.
        assertThat(run(Map.of(), "--product", "42", "--expires-in", "1h")).isEqualTo(2);
        assertThat(err.toString()).contains(MintInvite.SECRET_VARIABLE).contains("usage: MintInvite");
        assertThat(out.toString()).isEmpty();
    }

    private int run(Map<String, String> environment, String... args) {
        return MintInvite.run(args, environment, CLOCK, new PrintStream(out, true), new PrintStream(err, true));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder().encodeToString(der) + "\n-----END " + type
                + "-----\n";
    }
}
