package io.queuegate.token;

import java.security.Key;

import io.jsonwebtoken.Header;
import io.jsonwebtoken.JwsHeader;
import io.jsonwebtoken.LocatorAdapter;

/** Finds the key by {@code kid}; only HS256 is accepted, so no algorithm can be swapped in. */
final class KeyById extends LocatorAdapter<Key> {

    private final SigningKeys keys;

    KeyById(SigningKeys keys) {
        this.keys = keys;
    }

    @Override
    protected Key locate(JwsHeader header) {
        if (!"HS256".equals(header.getAlgorithm())) {
            throw new InvalidTokenException("the token must be signed with HS256");
        }
        Key key = keys.find(header.getKeyId());
        if (key == null) {
            throw new InvalidTokenException("the token's key id is unknown");
        }
        return key;
    }

    @Override
    protected Key doLocate(Header header) {
        throw new InvalidTokenException("the token is not signed");
    }
}
