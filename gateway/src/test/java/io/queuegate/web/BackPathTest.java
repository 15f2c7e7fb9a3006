package io.queuegate.web;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The address the language switch and the leave form come back to stays on the gateway's own
 * origin whatever a link says: an attacker's {@code back} (another host, a scheme, a header break)
 * is dropped, so the switch is no open redirect.
 */
class BackPathTest {

    static Stream<String> anotherSite() {
        return Stream.of("//evil.example/", "/\\evil.example", "https://evil.example/", "javascript:alert(1)",
                "evil.example", "", "/\r\nSet-Cookie: queue_token=x", "/ok\nLocation: //evil.example", "/%zz",
                "/a b", "/caf\u00e9", "\\\\evil.example", "/\t/evil.example", "/" + "a".repeat(BackPath.MAX_LENGTH));
    }

    @ParameterizedTest
    @MethodSource("anotherSite")
    void anAddressThatIsNotAPathOfThisOriginIsDropped(String back) {
        assertThat(BackPath.checked(back)).as(back).isNull();
    }

    @Test
    void aPathOfThisOriginIsKeptAsWritten() {
        assertThat(BackPath.checked("/api/products/42")).isEqualTo("/api/products/42");
        assertThat(BackPath.checked("/api/products/42?size=9&colour=%EB%B9%A8%EA%B0%95")).isEqualTo(
                "/api/products/42?size=9&colour=%EB%B9%A8%EA%B0%95");
        assertThat(BackPath.checked("/")).isEqualTo("/");
    }

    @Test
    void theRequestsOwnAddressLeavesItsInvitationBehind() {
        assertThat(BackPath.of(MockServerHttpRequest.get("/api/products/42?invite=abc.def&size=9").build()))
                .isEqualTo("/api/products/42?size=9");
        assertThat(BackPath.of(MockServerHttpRequest.get("/api/products/42?Invite=abc").build()))
                .isEqualTo("/api/products/42");
        assertThat(BackPath.of(MockServerHttpRequest.get("/api/products/42").build())).isEqualTo("/api/products/42");
    }
}
