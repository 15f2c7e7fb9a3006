package io.queuegate.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class QueueKeysTest {

    @Test
    void everyKeyOfAProductSharesOneHashTag() {
        QueueKeys keys = QueueKeys.of("42");
        assertThat(keys.active()).isEqualTo("qg:{42}:active");
        assertThat(keys.sequence()).isEqualTo("qg:{42}:seq");
        assertThat(keys.settings()).isEqualTo("qg:{42}:settings");
        assertThat(keys.left()).isEqualTo("qg:{42}:left");
        assertThat(keys.arriving()).isEqualTo("qg:{42}:arriving");
        assertThat(keys.challenge("9f86d081884c7d659a2feaa0c55ad015")).isEqualTo("qg:{42}:pow:9f86d081884c7d659a2feaa0c55ad015");
        // The scripts derive the line's keys from the first key's prefix (line.lua's prefix_of).
        assertThat(keys.forScripts()).first().isEqualTo("qg:{42}:settings");
        assertThat(keys.forScripts()).allMatch(key -> key.startsWith("qg:{42}:"));
    }

    @Test
    void theRegistryAndChannelsStandOutsideAnyProductSlot() {
        assertThat(QueueKeys.PRODUCTS).isEqualTo("qg:products");
        assertThat(QueueKeys.of("42").slotAvailableChannel()).isEqualTo("qg:slot-available:42");
        assertThat(QueueKeys.productOfChannel("qg:slot-available:sneakers-1")).isEqualTo("sneakers-1");
        assertThat(QueueKeys.productOfChannel("other")).isNull();
        assertThat(QueueKeys.SLOT_EVENTS).isEqualTo("qg:slot-events");
    }

    @Test
    void slotKeysNameTheirProductAndUser() {
        assertThat(QueueKeys.of("42").slot("alice")).isEqualTo("qg:{42}:slot:alice");
        assertThat(QueueKeys.productAndUserOfSlot("qg:{42}:slot:alice")).containsExactly("42", "alice");
        assertThat(QueueKeys.productAndUserOfSlot("qg:{42}:active")).isNull();
        assertThat(QueueKeys.productAndUserOfSlot("session:abc")).isNull();
        assertThat(QueueKeys.productAndUserOfSlot("qg:{}:slot:alice")).isNull();
    }
}
