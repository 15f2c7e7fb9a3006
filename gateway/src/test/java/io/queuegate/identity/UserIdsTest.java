package io.queuegate.identity;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UserIdsTest {

    @ParameterizedTest
    @ValueSource(strings = { "alice", "1234", "alice@example.com", "alice+drops@example.com",
            "3f2b8c1e-0d7a-4c55-9e0b-2b1f6c2d9a10", "user:42", "a.b_c-d" })
    void plainIdsAreKeptAsTheyAre(String id) {
        assertThat(UserIds.of(id)).isEqualTo(id);
    }

    @ParameterizedTest
    @ValueSource(strings = { "auth0|123", "Ana María", "alice{42}", "alice smith", "bob\tby", "x*", "ünïcødé" })
    void namesOutsideTheAlphabetBecomeAStableHashedId(String name) {
        String id = UserIds.of(name);
        assertThat(id).startsWith("#").hasSize(23).matches("#[A-Za-z0-9_-]{22}");
        assertThat(UserIds.of(name)).isEqualTo(id);
    }

    @Test
    void longNamesAreHashedToo() {
        assertThat(UserIds.of("a".repeat(128))).isEqualTo("a".repeat(128));
        assertThat(UserIds.of("a".repeat(129))).startsWith("#");
    }

    @Test
    void nobodyCanNameThemselvesIntoAnotherIdentitysHashedOrAnonymousId() {
        String hashed = UserIds.of("auth0|123");
        // The hashed id as a name is outside the alphabet itself ('#'), so it hashes again.
        assertThat(UserIds.of(hashed)).isNotEqualTo(hashed).startsWith("#");
        // A principal named like QueueGate's own anonymous ids cannot take an anonymous shopper's place.
        assertThat(UserIds.of("anon-AAAAAAAAAAAAAAAAAAAAAA")).startsWith("#");
    }

    @Test
    void differentNamesGetDifferentIds() {
        assertThat(UserIds.of("auth0|123")).isNotEqualTo(UserIds.of("auth0|124"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "auth0|123", "alice smith", "alice+drops@example.com", "x*", "alice{42}", "alice" })
    void theShopIsToldAnIdentityAsItCameWhenAHeaderCanCarryIt(String name) {
        assertThat(UserIds.forwardable(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = { "Ana María", "bob\tby", "line\r\nX-Admin: true", " padded", "padded " })
    void anIdentityNoHeaderCanCarryAsItCameIsToldAsItsQueueId(String name) {
        assertThat(UserIds.forwardable(name)).isEqualTo(UserIds.of(name)).startsWith("#");
    }

    @Test
    void aVeryLongIdentityIsToldAsItsQueueId() {
        assertThat(UserIds.forwardable("a".repeat(512))).isEqualTo("a".repeat(512));
        assertThat(UserIds.forwardable("a".repeat(513))).startsWith("#");
    }
}
