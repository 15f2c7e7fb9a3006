package io.queuegate.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPrivateKey;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;

/**
 * The shop's identity provider in a test: an RSA key pair made for the run, its public key
 * written where {@code spring.security.oauth2.resourceserver.jwt.public-key-location} can read
 * it, and real signed JWTs for any subject.
 */
final class ShopJwts {

    private final KeyPair keys = generate();
    private final KeyPair someoneElses = generate();
    private final Path publicKey;

    ShopJwts() {
        try {
            publicKey = Files.createTempFile("shop-public-key-", ".pem");
            String pem = "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(keys.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n";
            Files.writeString(publicKey, pem);
            publicKey.toFile().deleteOnExit();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The value of {@code public-key-location}. */
    String publicKeyLocation() {
        return "file:" + publicKey;
    }

    String signed(String subject) {
        return sign(keys, subject, Instant.now().plusSeconds(600));
    }

    String signedByAnotherKey(String subject) {
        return sign(someoneElses, subject, Instant.now().plusSeconds(600));
    }

    String expired(String subject) {
        return sign(keys, subject, Instant.now().minusSeconds(600));
    }

    String unsigned(String subject) {
        return new PlainJWT(claims(subject, Instant.now().plusSeconds(600))).serialize();
    }

    private static String sign(KeyPair pair, String subject, Instant expiry) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims(subject, expiry));
            jwt.sign(new RSASSASigner((RSAPrivateKey) pair.getPrivate()));
            return jwt.serialize();
        }
        catch (JOSEException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static JWTClaimsSet claims(String subject, Instant expiry) {
        return new JWTClaimsSet.Builder().subject(subject).issueTime(Date.from(expiry.minusSeconds(1200)))
                .expirationTime(Date.from(expiry)).build();
    }

    private static KeyPair generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
