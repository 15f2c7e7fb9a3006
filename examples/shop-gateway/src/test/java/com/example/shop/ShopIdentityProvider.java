package com.example.shop;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;

import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;

/**
 * The shop's identity provider in the tests: an RSA key made for the run, its public JWK set
 * served over HTTP as a real provider serves it, the JWTs it issues and the ones an attacker makes.
 */
final class ShopIdentityProvider implements AutoCloseable {

    static final String ISSUER = "https://login.shop.example/";

    static final String AUDIENCE = "shop-gateway";

    private static final String KEY_ID = "shop-signing-key-1";

    private static final String JWK_SET_PATH = "/.well-known/jwks.json";

    /** Well past the gateway's allowance for clock skew (60 seconds). */
    private static final Duration LONG_AGO = Duration.ofMinutes(10);

    private final RSAKey key;
    private final WireMockServer server;

    private ShopIdentityProvider(RSAKey key, WireMockServer server) {
        this.key = key;
        this.server = server;
    }

    /** Makes a key and publishes its public half. */
    static ShopIdentityProvider start() {
        RSAKey key = newKey();
        WireMockServer server = new WireMockServer(WireMockConfiguration.options().dynamicPort());
        server.start();
        server.stubFor(get(JWK_SET_PATH).willReturn(okJson(new JWKSet(key).toPublicJWKSet().toString())));
        return new ShopIdentityProvider(key, server);
    }

    /** Where the gateway fetches the provider's public keys. */
    String jwkSetUri() {
        return server.baseUrl() + JWK_SET_PATH;
    }

    /** A JWT the provider issued to {@code subject} for this gateway, valid for five minutes. */
    String jwtFor(String subject) {
        return signed(rsaSigner(key), JWSAlgorithm.RS256, claims(subject).build());
    }

    /** Good claims, signed by an attacker's own RSA key that claims the provider's key id. */
    String signedWithAnotherKey(String subject) {
        return signed(rsaSigner(newKey()), JWSAlgorithm.RS256, claims(subject).build());
    }

    /** Good claims with {@code alg: none} and no signature at all. */
    String unsigned(String subject) {
        return new PlainJWT(claims(subject).build()).serialize();
    }

    /** A JWT the provider really issued, which expired ten minutes ago. */
    String expired(String subject) {
        Instant issued = Instant.now().minus(LONG_AGO.multipliedBy(2));
        return signed(rsaSigner(key), JWSAlgorithm.RS256, claims(subject)
                .issueTime(Date.from(issued))
                .expirationTime(Date.from(Instant.now().minus(LONG_AGO)))
                .build());
    }

    /** Signed with the provider's key, but for another issuer (another tenant of the same provider). */
    String fromAnotherIssuer(String subject) {
        return signed(rsaSigner(key), JWSAlgorithm.RS256,
                claims(subject).issuer("https://login.other.example/").build());
    }

    /** Signed with the provider's key, but for another API of the shop's. */
    String forAnotherAudience(String subject) {
        return signed(rsaSigner(key), JWSAlgorithm.RS256, claims(subject).audience("shop-reporting").build());
    }

    /** HS256 keyed with the provider's public key, which anyone can download: the algorithm confusion attack. */
    String macSignedWithThePublicKey(String subject) {
        try {
            JWSSigner signer = new MACSigner(key.toRSAPublicKey().getEncoded());
            return signed(signer, JWSAlgorithm.HS256, claims(subject).build());
        }
        catch (JOSEException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void close() {
        server.stop();
    }

    private static JWTClaimsSet.Builder claims(String subject) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .audience(AUDIENCE)
                .subject(subject)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(Duration.ofMinutes(5))));
    }

    private static String signed(JWSSigner signer, JWSAlgorithm algorithm, JWTClaimsSet claims) {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(algorithm).keyID(KEY_ID).build(), claims);
        try {
            jwt.sign(signer);
        }
        catch (JOSEException ex) {
            throw new IllegalStateException(ex);
        }
        return jwt.serialize();
    }

    private static JWSSigner rsaSigner(RSAKey key) {
        try {
            return new RSASSASigner(key);
        }
        catch (JOSEException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static RSAKey newKey() {
        try {
            return new RSAKeyGenerator(2048).keyID(KEY_ID).generate();
        }
        catch (JOSEException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
