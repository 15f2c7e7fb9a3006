package io.queuegate.autoconfigure;

import java.time.Clock;

import io.queuegate.config.QueueGateProperties;
import io.queuegate.identity.IdentityAtStartup;
import io.queuegate.identity.IdentityResolver;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whichever identity resolver is in force, one line at startup names it; with the principal as
 * the source and no Spring Security to set one, it warns that every shopper is anonymous.
 */
class IdentityConfigurationTest {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withUserConfiguration(Properties.class, IdentityConfiguration.class)
            .withBean("queuegateClock", Clock.class, Clock::systemUTC)
            .withPropertyValues("queuegate.token.secret=test-secret-that-is-long-enough-for-hs256-0123456789");

    @Test
    void principalWithoutSpringSecurityOnTheClasspathWarns() {
        // The library's own tests have no Spring Security; hiding it keeps the test true if they ever do.
        runner.withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(context -> assertThat(context.getBean(IdentityAtStartup.class).line().warning()).isTrue());
    }

    @Test
    void theHeaderSourceIsNamed() {
        runner.withPropertyValues("queuegate.identity.source=header", "queuegate.trusted-proxies=10.0.0.0/8")
                .run(context -> assertThat(context.getBean(IdentityAtStartup.class).line().text())
                        .contains("the header X-User-Id names").contains("[10.0.0.0/8]"));
    }

    @Test
    void anApplicationsOwnResolverIsTheOneNamed() {
        runner.withBean(IdentityResolver.class, () -> exchange -> Mono.just("alice"))
                .run(context -> assertThat(context.getBean(IdentityAtStartup.class).line().text())
                        .contains("the application's IdentityResolver"));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(QueueGateProperties.class)
    static class Properties {
    }
}
