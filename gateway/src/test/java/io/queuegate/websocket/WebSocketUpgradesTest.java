package io.queuegate.websocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/** An upgrade is read loosely: whatever Spring would upgrade to a WebSocket counts, and more. */
class WebSocketUpgradesTest {

    @ParameterizedTest
    @ValueSource(strings = { "websocket", "WebSocket", "WEBSOCKET", " websocket ", "websocket/13", "websocket / 13",
            "h2c, websocket", "websocket,h2c" })
    void anUpgradeHeaderThatNamesWebSocketIsAnUpgrade(String upgrade) {
        assertThat(WebSocketUpgrades.isUpgrade(MockServerHttpRequest.get("/live/7").header("Upgrade", upgrade).build()))
                .isTrue();
    }

    @Test
    void anUpgradeOnAnyOfSeveralHeaderLinesCounts() {
        assertThat(WebSocketUpgrades.isUpgrade(MockServerHttpRequest.get("/live/7")
                .header("Upgrade", "h2c").header("Upgrade", "websocket").build())).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = { "h2c", "websockets", "web-socket", "" })
    void anotherProtocolIsNot(String upgrade) {
        assertThat(WebSocketUpgrades.isUpgrade(MockServerHttpRequest.get("/live/7").header("Upgrade", upgrade).build()))
                .isFalse();
        assertThat(WebSocketUpgrades.isUpgrade(MockServerHttpRequest.get("/live/7").build())).isFalse();
    }
}
