package io.queuegate.autoconfigure;

import java.time.Clock;

import io.queuegate.events.QueueEventHub;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.store.Channels;
import io.queuegate.store.QueueScripts;
import io.queuegate.web.QueueResponses;
import io.queuegate.websocket.OpenSockets;
import io.queuegate.websocket.WebSocketUpgrades;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** WebSocket upgrades on protected routes: refused, or tied to the session that let them in. */
@Configuration(proxyBeanMethods = false)
class WebSocketConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OpenSockets queuegateOpenSockets(QueueScripts scripts, Channels channels, Clock queuegateClock) {
        return new OpenSockets(scripts, channels, queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    WebSocketUpgrades queuegateWebSocketUpgrades(RouteQueuePolicies policies, OpenSockets sockets,
            QueueResponses responses, QueueEventHub events) {
        return new WebSocketUpgrades(policies, sockets, responses, events);
    }
}
