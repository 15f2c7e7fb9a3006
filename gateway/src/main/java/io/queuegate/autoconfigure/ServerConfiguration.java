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

    /**
     * Only when {@code queuegate.server.keep-alive-workaround} is true: it sets a JVM-wide system
     * property, which a library must not do behind the application's back.
     */
    @Bean
    @ConditionalOnProperty(name = "queuegate.server.keep-alive-workaround", havingValue = "true")
    KeepAliveWorkaround queuegateKeepAliveWorkaround() {
        return new KeepAliveWorkaround();
    }
}
