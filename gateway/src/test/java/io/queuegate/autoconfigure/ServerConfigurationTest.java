package io.queuegate.autoconfigure;

import io.queuegate.server.KeepAliveWorkaround;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keep-alive workaround sets a JVM-wide system property, so the library leaves it to the
 * application: off unless {@code queuegate.server.keep-alive-workaround} is set (the runnable
 * gateway sets it).
 */
class ServerConfigurationTest {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withUserConfiguration(ServerConfiguration.class);

    @Test
    void theLibraryLeavesTheJvmWideKeepAliveFlagAloneByDefault() {
        runner.run(context -> assertThat(context).doesNotHaveBean(KeepAliveWorkaround.class));
    }

    @Test
    void anApplicationTurnsTheWorkaroundOn() {
        runner.withPropertyValues("queuegate.server.keep-alive-workaround=true")
                .run(context -> assertThat(context).hasSingleBean(KeepAliveWorkaround.class));
    }
}
