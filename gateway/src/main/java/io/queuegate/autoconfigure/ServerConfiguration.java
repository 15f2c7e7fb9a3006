package io.queuegate.autoconfigure;

import io.queuegate.config.QueueGateProperties;
import io.queuegate.server.HeaderReadTimeout;
import io.queuegate.server.KeepAliveWorkaround;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What QueueGate adds to the HTTP server (Reactor Netty) it runs in. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "reactor.netty.http.server.HttpServer")
class ServerConfiguration {

    /** Only when {@code queuegate.server.header-read-timeout} is set: the server is the application's. */
    @Bean
    @ConditionalOnProperty("queuegate.server.header-read-timeout")
    HeaderReadTimeout queuegateHeaderReadTimeout(QueueGateProperties properties) {
        return new HeaderReadTimeout(properties.server().headerReadTimeout());
    }

    @Bean
    KeepAliveWorkaround queuegateKeepAliveWorkaround() {
        return new KeepAliveWorkaround();
    }
}
