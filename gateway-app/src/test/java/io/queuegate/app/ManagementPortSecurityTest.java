package io.queuegate.app;


import com.github.tomakehurst.wiremock.client.WireMock;
import io.queuegate.support.PowSolver;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The management port of the runnable gateway attacked as a hostile test found it: from the network
 * that reaches the port, and from a DNS-rebinding page in an operator's browser. Changes to the
 * queues and the console need the operator's login (here set with {@code spring.security.user.*});
 * neither a shopper's JWT nor a wrong password is one. A request whose {@code Host} is not one of the
 * gateway's own names is refused before it acts, even with the login, since a rebinding page's
 * browser sends its own name and calls the request same-origin. What probes and Prometheus read stays
 * open, whatever {@code Host} they send. The shopper port gets none of it.
 */
class ManagementPortSecurityTest {

    static final String OPERATOR = "ops-alice";
    static final String PASSWORD = "correct-horse-battery-staple";
    private static final String PAUSE = "{\"action\":\"pause\"}";

    private static final ShopJwts jwts = new ShopJwts();

    @RegisterExtension
    static final RunnableGatewayFixture fixture = RunnableGatewayFixture.create()
            .with("spring.security.user.name", OPERATOR)
            .with("spring.security.user.password", PASSWORD)
            .with("spring.security.oauth2.resourceserver.jwt.public-key-location", jwts.publicKeyLocation());

    /** Product 42 exists (a shopper joined it) and nobody paused it. */
    @BeforeEach
    void oneShopperJoined() {
        fixture.redis().flushAll();
        assertThat(fixture.gateway().anonymousJoin("/api/products/42").statusCode()).isEqualTo(200);
        assertThat(paused()).isFalse();
    }

    @Test
    void shoppersRequestsPassSpringSecurityWhenItValidatesTheirJwts() {
        assertThat(fixture.gateway().bean(ShopperPathSecurity.Filter.class).shoppersSkip()).isFalse();
    }

    @Test
    void aChangeWithoutTheOperatorsLoginIsRefusedAndChangesNothing() {
        RawHttp.Answer anonymous = post("/actuator/queues/42", PAUSE);
        assertThat(anonymous.status()).as(anonymous.toString()).isEqualTo(401);
        assertThat(anonymous.header("WWW-Authenticate")).hasValueSatisfying(challenge ->
                assertThat(challenge).startsWith("Basic"));

        assertThat(post("/actuator/queues/42", PAUSE, "Authorization", RawHttp.basic(OPERATOR, "wrong")).status())
                .isEqualTo(401);
        assertThat(post("/actuator/queues/42", PAUSE, "Authorization", RawHttp.basic("user", PASSWORD)).status())
                .isEqualTo(401);
        assertThat(post("/actuator/queues/42", PAUSE, "Authorization", "Bearer " + jwts.signed(OPERATOR)).status())
                .as("a JWT of the shop's identity provider names a shopper, not an operator")
                .isEqualTo(401);
        assertThat(paused()).as("nothing was paused").isFalse();
    }

    @Test
    void theOperatorsLoginActs() {
        RawHttp.Answer paused = post("/actuator/queues/42", PAUSE, "Authorization", RawHttp.basic(OPERATOR, PASSWORD));
        assertThat(paused.status()).as(paused.toString()).isEqualTo(200);
        assertThat(paused.body()).contains("\"paused\":true");
        assertThat(paused()).isTrue();

        RawHttp.Answer resumed = post("/actuator/queues/42", "{\"action\":\"resume\"}",
                "Authorization", RawHttp.basic(OPERATOR, PASSWORD));
        assertThat(resumed.status()).isEqualTo(200);
        assertThat(paused()).isFalse();
    }

    @Test
    void aDnsRebindingPageCannotActEvenWithTheOperatorsLogin() {
        String evil = "evil.example:" + fixture.gateway().managementPort();
        // What the browser of a rebinding page sends: its own name, and same-origin by its own account.
        RawHttp.Answer rebound = post("/actuator/queues/42", PAUSE, "Host", evil, "Origin", "http://" + evil,
                "Sec-Fetch-Site", "same-origin", "Authorization", RawHttp.basic(OPERATOR, PASSWORD));
        assertThat(rebound.status()).as(rebound.toString()).isEqualTo(421);
        assertThat(rebound.body()).contains("host_not_allowed");
        // The Host alone, without Origin (a simple request some browsers send without one).
        RawHttp.Answer hostOnly = post("/actuator/queues/42", PAUSE, "Host", evil,
                "Authorization", RawHttp.basic(OPERATOR, PASSWORD));
        assertThat(hostOnly.status()).as(hostOnly.toString()).isEqualTo(421);
        // Without the login (a rebinding page has none to send) it is refused before a login is asked
        // for, so the operator's browser never shows a login prompt under the attacker's name.
        RawHttp.Answer anonymous = post("/actuator/queues/42", PAUSE, "Host", evil, "Origin", "http://" + evil);
        assertThat(anonymous.status()).as(anonymous.toString()).isEqualTo(421);
        assertThat(anonymous.header("WWW-Authenticate")).isEmpty();
        // Another address of the same network is no name of this gateway either.
        assertThat(post("/actuator/queues/42", PAUSE, "Host", "10.1.2.3:" + fixture.gateway().managementPort(),
                "Authorization", RawHttp.basic(OPERATOR, PASSWORD)).status()).isEqualTo(421);
        assertThat(paused()).as("nothing was paused").isFalse();

        // The gateway's own names act.
        for (String host : new String[] { "localhost:" + fixture.gateway().managementPort(), "127.0.0.1:" + fixture.gateway().managementPort(),
                "[::1]:" + fixture.gateway().managementPort() }) {
            RawHttp.Answer own = post("/actuator/queues/42", PAUSE, "Host", host, "Origin", "http://" + host,
                    "Sec-Fetch-Site", "same-origin", "Authorization", RawHttp.basic(OPERATOR, PASSWORD));
            assertThat(own.status()).as(host + ": " + own).isEqualTo(200);
        }
        assertThat(paused()).isTrue();
    }

    @Test
    void theConsoleNeedsTheLoginAndOneOfTheGatewaysOwnNames() {
        String login = RawHttp.basic(OPERATOR, PASSWORD);
        assertThat(get("/actuator/queueconsole").status()).isEqualTo(401);
        assertThat(get("/actuator/queueconsole/products").status()).isEqualTo(401);

        RawHttp.Answer rebound = get("/actuator/queueconsole", "Host", "evil.example:" + fixture.gateway().managementPort(),
                "Authorization", login);
        assertThat(rebound.status()).as(rebound.toString()).isEqualTo(421);
        assertThat(rebound.body()).doesNotContain("QueueGate console");
        assertThat(get("/actuator/queueconsole/products", "Host", "evil.example:" + fixture.gateway().managementPort(),
                "Authorization", login).status()).isEqualTo(421);

        RawHttp.Answer console = get("/actuator/queueconsole", "Host", "localhost:" + fixture.gateway().managementPort(),
                "Authorization", login);
        assertThat(console.status()).as(console.toString()).isEqualTo(200);
        assertThat(console.body()).contains("QueueGate console");
        assertThat(console.header("Content-Security-Policy")).hasValueSatisfying(policy ->
                assertThat(policy).contains("frame-ancestors 'none'"));
        assertThat(get("/actuator/queueconsole/products", "Authorization", login).status()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = { "/actuator/health", "/actuator/health/liveness", "/actuator/health/readiness",
            "/actuator/prometheus", "/actuator/queues", "/actuator/queues/42" })
    void probesAndScrapersReadWithoutALoginWhateverHostTheySend(String path) {
        for (String host : new String[] { "10.1.2.3:9090", "queuegate-management.shop.svc:9090", "localhost" }) {
            RawHttp.Answer read = get(path, "Host", host, "Accept", "text/plain, application/json");
            assertThat(read.status()).as(host + " " + path + ": " + read).isEqualTo(200);
        }
    }

    @Test
    void theShopperPortAsksNoLoginAndAddsNothingOfTheManagementPortsSecurity() {
        // Each request is a new anonymous shopper, so each asks a product of its own, which admits it.
        int product = 100;
        for (String[] credentials : new String[][] { {}, { "Authorization", RawHttp.basic(OPERATOR, PASSWORD) },
                { "Authorization", RawHttp.basic(OPERATOR, "wrong") }, { "Host", "fixture.shop().example" } }) {
            String path = "/api/products/" + ++product;
            // Anonymous, so first asked for the proof of work the runnable gateway asks of anonymous callers.
            RawHttp.Answer challenged = RawHttp.send(fixture.gateway().port(), "GET", path, null, credentials);
            assertThat(challenged.status()).as(challenged.toString()).isEqualTo(428);
            assertThat(challenged.headers()).doesNotContainKey("www-authenticate");
            String[] paid = java.util.Arrays.copyOf(credentials, credentials.length + 2);
            paid[credentials.length] = "Queue-Challenge";
            paid[credentials.length + 1] = PowSolver.solveBody(challenged.body());
            RawHttp.Answer answer = RawHttp.send(fixture.gateway().port(), "GET", path, null, paid);
            assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
            assertThat(answer.headers()).as("no login challenge, no security headers of the management chain")
                    .doesNotContainKeys("www-authenticate", "x-frame-options", "x-content-type-options",
                            "x-xss-protection", "cache-control", "pragma", "expires");
        }
        // A write from another origin, without a login, passes to the shop as before.
        RawHttp.Answer unpaid = RawHttp.send(fixture.gateway().port(), "POST", "/api/products/300", "{}",
                "Content-Type", "application/json", "Origin", "http://elsewhere.example");
        assertThat(unpaid.status()).as(unpaid.toString()).isEqualTo(428);
        RawHttp.Answer write = RawHttp.send(fixture.gateway().port(), "POST", "/api/products/300", "{}",
                "Content-Type", "application/json", "Origin", "http://elsewhere.example",
                "Queue-Challenge", PowSolver.solveBody(unpaid.body()));
        assertThat(write.status()).as("the shop's own answer (it has no such handler): %s", write).isEqualTo(404);
        assertThat(fixture.shop().findAll(WireMock.postRequestedFor(WireMock.urlEqualTo("/api/products/300")))).hasSize(1);
    }

    private static boolean paused() {
        RawHttp.Answer queue = get("/actuator/queues/42");
        assertThat(queue.status()).as(queue.toString()).isEqualTo(200);
        return queue.body().contains("\"paused\":true");
    }

    private static RawHttp.Answer get(String path, String... headers) {
        return RawHttp.send(fixture.gateway().managementPort(), "GET", path, null, headers);
    }

    private static RawHttp.Answer post(String path, String body, String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = "Content-Type";
        all[1] = "application/json";
        System.arraycopy(headers, 0, all, 2, headers.length);
        return RawHttp.send(fixture.gateway().managementPort(), "POST", path, body, all);
    }
}
