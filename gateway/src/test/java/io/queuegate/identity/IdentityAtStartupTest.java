package io.queuegate.identity;

import java.time.Clock;
import java.util.List;

import org.junit.jupiter.api.Test;

import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/** The one line that says at startup who QueueGate takes a shopper to be. */
class IdentityAtStartupTest {

    private static final IgnoredIdentityHeaders IGNORED = new IgnoredIdentityHeaders("X-User-Id", Clock.systemUTC());

    @Test
    void principalWithoutSpringSecurityWarnsThatEveryShopperIsAnonymous() {
        IdentityAtStartup.Line line = new IdentityAtStartup(new PrincipalIdentity(IGNORED), "X-User-Id", List.of(),
                false).line();
        assertThat(line.warning()).isTrue();
        assertThat(line.text()).contains("queuegate.identity.source is principal, but Spring Security is not on the "
                + "classpath").contains("every shopper is anonymous");
    }

    @Test
    void principalWithSpringSecuritySaysSoQuietly() {
        IdentityAtStartup.Line line = new IdentityAtStartup(new PrincipalIdentity(IGNORED), "X-User-Id", List.of(),
                true).line();
        assertThat(line.warning()).isFalse();
        assertThat(line.text()).contains("the principal Spring Security authenticated")
                .contains("queuegate.identity.source: principal");
    }

    @Test
    void aTrustedHeaderIsNamedWithTheProxiesItIsBelievedFrom() {
        List<String> proxies = List.of("10.0.0.0/8");
        IdentityAtStartup.Line line = new IdentityAtStartup(new TrustedHeaderIdentity("X-Shopper",
                new TrustedProxies(proxies), IGNORED), "X-Shopper", proxies, false).line();
        assertThat(line.warning()).isFalse();
        assertThat(line.text()).contains("the header X-Shopper names")
                .contains("queuegate.trusted-proxies [10.0.0.0/8]");
    }

    @Test
    void anApplicationsOwnResolverIsNamedByItsClass() {
        IdentityResolver own = exchange -> Mono.just("alice");
        IdentityAtStartup.Line line = new IdentityAtStartup(own, "X-User-Id", List.of(), false).line();
        assertThat(line.warning()).isFalse();
        assertThat(line.text()).contains("the application's IdentityResolver (" + own.getClass().getName() + ")");
    }
}
