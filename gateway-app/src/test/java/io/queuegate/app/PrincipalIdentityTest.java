package io.queuegate.app;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.queuegate.identity.UserIds;
import io.queuegate.support.Lines;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runnable gateway's default identity: Spring Security's principal. With the shop's JWT
 * verification configured ({@code spring.security.oauth2.resourceserver.jwt.public-key-location}),
 * shoppers queue as the subject of a JWT the shop signed, and nothing a client writes itself
 * (a forged JWT, an {@code X-User-Id}) names anyone.
 */
class PrincipalIdentityTest {

    /** Each header on its own line, as HTTP/1.1 sends them. */
    private static final HttpClient HTTP_1_1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static final ShopJwts jwts = new ShopJwts();

    @RegisterExtension
    static final RunnableGatewayFixture fixture = RunnableGatewayFixture.create()
            .with("spring.security.oauth2.resourceserver.jwt.public-key-location", jwts.publicKeyLocation())
            .withOpenRoute("open", "/open/**");

    @BeforeEach
    void empty() {
        fixture.redis().flushAll();
        fixture.shop().resetRequests();
    }

    @Test
    void twoShoppersWithTheShopsJwtsQueueAsThemselves() {
        assertThat(product(bearer("alice")).statusCode()).isEqualTo(200);
        HttpResponse<String> bob = product(bearer("bob"));
        assertThat(bob.statusCode()).isEqualTo(429);
        assertThat(bob.body()).contains("\"userId\":\"bob\"").contains("\"rank\":1");
        assertThat(Lines.of(fixture.redis().commands(), "42")).containsExactly("bob");
        assertThat(fixture.shop().findAll(anyRequestedFor(anyUrl()))).singleElement()
                .satisfies(request -> assertThat(request.getHeader("X-User-Id")).isEqualTo("alice"));
    }

    @Test
    void aJwtTheShopDidNotSignNeverGetsAPlace() {
        for (String forged : new String[] { jwts.signedByAnotherKey("alice"), jwts.unsigned("alice"),
                jwts.expired("alice"), "not-a-jwt" }) {
            HttpResponse<String> answer = fixture.gateway().shopper("GET", "/api/products/42", "Authorization", "Bearer " + forged);
            assertThat(answer.statusCode()).as(forged).isEqualTo(401);
            assertThat(answer.headers().firstValue("WWW-Authenticate")).as("Spring Security refused it")
                    .hasValueSatisfying(value -> assertThat(value).startsWith("Bearer"));
        }
        assertThat(fixture.redis().commands().keys("qg:{42}:*")).isEmpty();
        assertThat(fixture.shop().findAll(anyRequestedFor(anyUrl()))).isEmpty();
    }

    @Test
    void anIdentityHeaderNamesNobodyWhenShoppersAreKnownByTheirPrincipal() {
        product(bearer("bob"));
        // Anonymous, whatever the header says: asked for the proof of work anonymous callers pay.
        assertThat(product("X-User-Id", "alice").statusCode()).isEqualTo(428);
        HttpResponse<String> forged = fixture.gateway().anonymousJoin("/api/products/42", "X-User-Id", "alice");
        assertThat(forged.statusCode()).isEqualTo(429);
        assertThat(forged.body()).contains("\"userId\":\"anon-");
        HttpResponse<String> both = product("Authorization", "Bearer " + jwts.signed("carol"), "X-User-Id", "alice");
        assertThat(both.body()).contains("\"userId\":\"carol\"");
        assertThat(Lines.of(fixture.redis().commands(), "42")).doesNotContain("alice").contains("carol");
    }

    @Test
    void aSubjectOutsideTheIdAlphabetQueuesUnderItsHashedId() {
        assertThat(product(bearer("auth0|123")).statusCode()).isEqualTo(200);
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).containsExactly(UserIds.of("auth0|123"));
    }

    @Test
    void aWaitTokenAloneShowsThePlaceButOnlyTheShoppersJwtLetsThemThrough() {
        HttpResponse<String> first = product(bearer("bob"));
        String bobs = first.headers().firstValue("Queue-Token").orElseThrow();
        String alices = product(bearer("alice")).headers().firstValue("Queue-Token").orElseThrow();

        HttpResponse<String> status = fixture.gateway().shopper("GET", "/queue/42/status", "Queue-Token", alices);
        assertThat(status.body()).contains("\"status\":\"WAITING\"");

        fixture.gateway().shopper("DELETE", "/queue/42", "Queue-Token", bobs);
        HttpResponse<String> tokenAlone = product("Queue-Token", alices);
        assertThat(tokenAlone.statusCode()).as(tokenAlone.body()).isEqualTo(403);
        assertThat(tokenAlone.body()).contains("wrong_user");
        HttpResponse<String> withJwt = product("Queue-Token", alices, "Authorization", "Bearer " + jwts.signed("alice"));
        assertThat(withJwt.statusCode()).isEqualTo(200);
        assertThat(fixture.shop().findAll(anyRequestedFor(anyUrl())).stream().map(request -> request.getHeader("X-User-Id")))
                .containsExactly("bob", "alice");
    }

    /**
     * Spring Security authenticates the first {@code Authorization} header; the shop behind may
     * read the other. Both orders, and a forged one beside a genuine one, are refused before
     * either is looked at, on every path Spring Security's bearer resolution runs on.
     */
    @Test
    void twoAuthorizationHeadersAreRefusedBeforeEitherAuthenticates() throws Exception {
        String alice = "Bearer " + jwts.signed("alice");
        String mallory = "Bearer " + jwts.signed("mallory");
        String[][] pairs = { { alice, mallory }, { mallory, alice }, { alice, "Bearer not-a-jwt" },
                { "Bearer " + jwts.signedByAnotherKey("alice"), alice } };
        for (String path : new String[] { "/api/products/42", "/queue/42/status", "/open/page" }) {
            for (String[] pair : pairs) {
                HttpResponse<String> answer = withTwoAuthorizations(path, pair[0], pair[1]);
                assertThat(answer.statusCode()).as("%s: %s", path, answer.body()).isEqualTo(400);
                assertThat(answer.body()).as(path).contains("\"error\":\"ambiguous_authorization\"");
                assertThat(answer.headers().firstValue("WWW-Authenticate")).as("%s: Spring Security never ran", path)
                        .isEmpty();
            }
        }
        assertThat(fixture.redis().commands().keys("qg:{42}:*")).isEmpty();
        assertThat(fixture.shop().findAll(anyRequestedFor(anyUrl()))).isEmpty();
    }

    private static HttpResponse<String> withTwoAuthorizations(String path, String first, String second)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.gateway().port() + path))
                .timeout(Duration.ofSeconds(10)).header("Accept", "application/json")
                .header("Authorization", first).header("Authorization", second).GET().build();
        return HTTP_1_1.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String[] bearer(String subject) {
        return new String[] { "Authorization", "Bearer " + jwts.signed(subject) };
    }

    private static HttpResponse<String> product(String... headers) {
        return fixture.gateway().shopper("GET", "/api/products/42", headers);
    }
}
