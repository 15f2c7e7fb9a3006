package io.queuegate.config;

import io.queuegate.autoconfigure.QueueGateAutoConfiguration;
import io.queuegate.promotion.PromotionScheduler;
import io.queuegate.web.QueueAdmissionFilter;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.route.RouteLocator;

import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;

/** The auto-configuration as a shop's own gateway would get it, and its startup checks. */
class QueueGatePropertiesTest {

    private static final String SECRET = "queuegate.token.secret=a-secret-that-is-long-enough-for-hs256-01234";

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    DataRedisReactiveAutoConfiguration.class, QueueGateAutoConfiguration.class))
            // The shop's gateway brings its own routes; none are needed to configure QueueGate.
            .withBean(RouteLocator.class, () -> () -> Flux.empty());

    @Test
    void installsTheFilterAndThePromotionLoops() {
        runner.withPropertyValues(SECRET).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(QueueAdmissionFilter.class)
                    .hasSingleBean(PromotionScheduler.class);
            QueueGateProperties properties = context.getBean(QueueGateProperties.class);
            assertThat(properties.identityHeader()).isEqualTo("X-User-Id");
            assertThat(properties.token().ttl()).hasHours(2);
            assertThat(properties.scheduler().interval()).hasSeconds(5);
            assertThat(properties.safetyNet().interval()).hasSeconds(30);
        });
    }

    @Test
    void takesAShopsBrandingAndRefusesWhatCannotGoOnAPageSafely() {
        runner.withPropertyValues(SECRET, "queuegate.page.shop-name= Sneaker Hub ",
                "queuegate.page.logo-url=https://cdn.example.com:8443/brand/logo.svg",
                "queuegate.page.primary-color=#0A3", "queuegate.page.accent-color=#c2410c",
                "queuegate.page.tagline=Questions? help@example.com").run(context -> {
                    assertThat(context).hasNotFailed();
                    QueueGateProperties.Page page = context.getBean(QueueGateProperties.class).page();
                    assertThat(page.shopName()).isEqualTo("Sneaker Hub");
                    assertThat(page.logoOrigin()).isEqualTo("https://cdn.example.com:8443");
                    assertThat(page.primaryColor()).isEqualTo("#0A3");
                });
        runner.withPropertyValues(SECRET, "queuegate.page.logo-url=/static/logo.svg").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(QueueGateProperties.class).page().logoOrigin()).as("a path is the gateway's own")
                    .isNull();
        });
        String[][] refused = {
                { "queuegate.page.primary-color=red", "queuegate.page.primary-color must be a colour written #rgb or #rrggbb" },
                { "queuegate.page.accent-color=#12345", "queuegate.page.accent-color must be a colour written #rgb or #rrggbb" },
                { "queuegate.page.accent-color=#fff;background:url(x)", "queuegate.page.accent-color must be a colour" },
                { "queuegate.page.logo-url=http://cdn.example.com/logo.svg", "queuegate.page.logo-url must be an absolute https URL" },
                { "queuegate.page.logo-url=javascript:alert(1)", "queuegate.page.logo-url must be an absolute https URL" },
                { "queuegate.page.logo-url=//cdn.example.com/logo.svg", "queuegate.page.logo-url must be an absolute https URL" },
                { "queuegate.page.logo-url=logo.svg", "queuegate.page.logo-url must be an absolute https URL" },
                { "queuegate.page.shop-name=" + "x".repeat(81), "queuegate.page.shop-name must be at most 80 characters" },
                { "queuegate.page.tagline=one\ntwo", "queuegate.page.tagline must be one line" } };
        for (String[] property : refused) {
            runner.withPropertyValues(SECRET, property[0]).run(context -> assertThat(context).as(property[0])
                    .hasFailed().getFailure().rootCause().hasMessageContaining(property[1]));
        }
    }

    @Test
    void refusesToStartWithoutASecret() {
        runner.run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("queuegate.token.secret is required"));
    }

    @Test
    void keepsProductsInLowerCaseAndRefusesTwoKeysThatAreOneProduct() {
        runner.withPropertyValues(SECRET, "queuegate.products.RD1.max-active=3").run(context ->
                assertThat(context.getBean(QueueGateProperties.class).products()).containsOnlyKeys("rd1"));
        runner.withPropertyValues(SECRET, "queuegate.products.RD1.max-active=3", "queuegate.products.rd1.max-active=4")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("are one product"));
    }

    @Test
    void refusesToStartWithAShortSecret() {
        runner.withPropertyValues("queuegate.token.secret=too-short").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("must be at least 32 bytes"));
    }

    @Test
    void theMetricsAndConsoleSettingsAreOneTreeWithQueueGatesAndCheckedAsTheyBind() {
        runner.withPropertyValues(SECRET, "queuegate.metrics.max-products=7", "queuegate.console.history=5m")
                .run(context -> {
                    QueueGateProperties properties = context.getBean(QueueGateProperties.class);
                    assertThat(properties.metrics().maxProducts()).isEqualTo(7);
                    assertThat(properties.metrics().refreshInterval()).hasSeconds(10);
                    assertThat(properties.console().history()).hasMinutes(5);
                    assertThat(properties.console().points()).isEqualTo(31);
                });
        runner.withPropertyValues(SECRET, "queuegate.metrics.max-products=0").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("queuegate.metrics.max-products must be at least 1"));
        runner.withPropertyValues(SECRET, "queuegate.console.sample-interval=1s", "queuegate.console.history=1h")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("at most 2000 points, was 3600"));
    }

    @Test
    void refusesAnInvalidProductOverride() {
        runner.withPropertyValues(SECRET, "queuegate.products.42.max-active=0").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("max-active must be at least 1"));
    }

    @Test
    void refusesAProductThatAsksForInvitationsWithoutAKeyToCheckThem() {
        runner.withPropertyValues(SECRET, "queuegate.products.42.invites=required").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("queuegate.products.42.invites is required, "
                        + "but no invitation key is configured"));
        runner.withPropertyValues(SECRET, "queuegate.products.42.invites=required",
                "queuegate.invites.secret=an-invitation-secret-long-enough-for-hs256-0123")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void refusesInvitationKeysThatCannotBeUsed() {
        runner.withPropertyValues(SECRET, "queuegate.invites.secret=short").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("queuegate.invites.secret must be at least 32 bytes"));
        runner.withPropertyValues(SECRET, "queuegate.invites.secret=a-secret-that-is-long-enough-for-hs256-01234")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("queuegate.invites.secret must differ from queuegate.token.secret"));
        runner.withPropertyValues(SECRET, "queuegate.invites.public-key=not a key").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("queuegate.invites.public-key must be a PEM"));
        runner.withPropertyValues(SECRET, "queuegate.invites.jwk-set=classpath:no-such-jwks.json").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("no-such-jwks.json"));
    }

    @Test
    void acceptsEveryPromotionStrategyPerProduct() {
        runner.withPropertyValues(SECRET, "queuegate.products.a.promotion=scheduler",
                "queuegate.products.b.promotion=pubsub", "queuegate.products.c.promotion=keyspace",
                "queuegate.products.d.promotion=stream").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void refusesAStreamTooShortToHoldABurst() {
        runner.withPropertyValues(SECRET, "queuegate.stream.max-length=10").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("max-length must be at least 100"));
    }

    @Test
    void stepsAsideWhenDisabled() {
        runner.withPropertyValues("queuegate.enabled=false").run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(QueueAdmissionFilter.class));
    }

    @Test
    void productOverridesWinOverTheRouteBlock() {
        QueueSettings route = new QueueSettings(10, null, Promotion.SCHEDULER, null, null, null, null, null, null, null,
                null, null, null, null, JoinChallenge.POW, null, null, null, null, null, null, null, null);
        QueueSettings product = new QueueSettings(3, null, null, null, RedisFailureMode.OPEN, null, null, null, null, null,
                null, null, null, null, null, 50_000, BindToken.NETWORK, null, null, null, null, null, null);
        QueuePolicy policy = QueuePolicy.from(route.overriddenBy(product));
        assertThat(policy.maxActive()).isEqualTo(3);
        assertThat(policy.promotion()).isEqualTo(Promotion.SCHEDULER);
        assertThat(policy.onRedisFailure()).isEqualTo(RedisFailureMode.OPEN);
        assertThat(policy.sessionTtl()).hasMinutes(10);
        assertThat(policy.productIdVariable()).isEqualTo("productId");
        assertThat(policy.joinChallenge()).isEqualTo(JoinChallenge.POW);
        assertThat(policy.powDifficulty()).isEqualTo(50_000);
        assertThat(policy.bindToken()).isEqualTo(BindToken.NETWORK);
    }

    @Test
    void joinChallengeAndTokenBindingAreOffByDefault() {
        QueuePolicy policy = QueuePolicy.from(QueueSettings.EMPTY);
        assertThat(policy.joinChallenge()).isEqualTo(JoinChallenge.NONE);
        assertThat(policy.powDifficulty()).isEqualTo(QueuePolicy.DEFAULT_POW_DIFFICULTY).isEqualTo(200_000);
        assertThat(policy.bindToken()).isEqualTo(BindToken.NONE);
    }

    @Test
    void refusesAPowDifficultyNoPhoneCouldPay() {
        runner.withPropertyValues(SECRET, "queuegate.products.drop.pow-difficulty=0")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("pow-difficulty must be between 1 and 50000000"));
        runner.withPropertyValues(SECRET, "queuegate.products.drop.pow-difficulty=60000000")
                .run(context -> assertThat(context).hasFailed());
        runner.withPropertyValues(SECRET, "queuegate.challenge.ttl=1s")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("queuegate.challenge.ttl must be between 10s and 1h"));
        runner.withPropertyValues(SECRET, "queuegate.challenge.secret=short")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("queuegate.challenge.secret must be at least 32 bytes"));
    }

    @Test
    void bindsTheRulesOfADropPerProduct() {
        runner.withPropertyValues(SECRET, "queuegate.products.drop.opens-at=2026-12-24T10:00:00+09:00",
                "queuegate.products.drop.closes-at=2026-12-24T02:00:00Z",
                "queuegate.products.drop.max-admit-per-minute=120", "queuegate.products.drop.abandon-after=90s",
                "queuegate.products.drop.arrival-ttl=30s").run(context -> {
                    assertThat(context).hasNotFailed();
                    QueuePolicy policy = QueuePolicy.from(
                            context.getBean(QueueGateProperties.class).products().get("drop"));
                    assertThat(policy.opensAt()).isEqualTo(java.time.Instant.parse("2026-12-24T01:00:00Z"));
                    assertThat(policy.closesAt()).isEqualTo(java.time.Instant.parse("2026-12-24T02:00:00Z"));
                    assertThat(policy.maxAdmitPerMinute()).isEqualTo(120);
                    assertThat(policy.abandonAfter()).hasSeconds(90);
                    assertThat(policy.arrivalTtl()).hasSeconds(30);
                });
    }

    @Test
    void dropDefaultsKeepPlacesForAMinuteUnseenAndGiveAMinuteToArrive() {
        QueuePolicy policy = QueuePolicy.from(QueueSettings.EMPTY);
        assertThat(policy.abandonAfter()).hasSeconds(60);
        assertThat(policy.arrivalTtl()).hasSeconds(60);
        assertThat(policy.maxAdmitPerMinute()).isZero();
        assertThat(policy.opensAt()).isNull();
    }

    @Test
    void refusesADropThatClosesBeforeItOpens() {
        runner.withPropertyValues(SECRET, "queuegate.products.drop.opens-at=2026-12-24T10:00:00Z",
                "queuegate.products.drop.closes-at=2026-12-24T09:00:00Z").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("must be after opens-at"));
    }

    @Test
    void refusesAnAbandonAfterTooShortToPollWithin() {
        runner.withPropertyValues(SECRET, "queuegate.products.drop.abandon-after=1s").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("abandon-after must be 0 (never) or at least 3s"));
    }

    @Test
    void refusesADisplayNameTooLongForATitleNamingTheProduct() {
        runner.withPropertyValues(SECRET, "queuegate.products.drop.display-name=" + "x".repeat(81)).run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("queuegate.products.drop: display-name must be at most 80 characters"));
        runner.withPropertyValues(SECRET, "queuegate.products.drop.display-name=  ").run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining("display-name must not be blank"));
    }

    @Test
    void keepsADisplayNameTrimmed() {
        runner.withPropertyValues(SECRET, "queuegate.products.drop.display-name= Limited sneakers ").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(QueuePolicy.from(context.getBean(QueueGateProperties.class).products().get("drop")).displayName())
                    .isEqualTo("Limited sneakers");
        });
    }
}
