package io.queuegate.identity;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.queuegate.support.TestClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behind an ingress that is not in {@code queuegate.trusted-proxies}, every shopper's address is
 * the ingress's: per-address join limits and stream caps become one limit for everybody. The
 * {@code X-Forwarded-For} such a proxy sends is what gives it away, so it is reported, at most
 * once a minute (a client sending the header itself cannot flood the log).
 */
@ExtendWith(OutputCaptureExtension.class)
class IgnoredForwardedForTest {

    private static final String WARNING = "Ignored X-Forwarded-For from ";

    private final TestClock clock = new TestClock(Instant.ofEpochMilli(1_000_000));
    private final ClientAddresses addresses = new ClientAddresses(new TrustedProxies(List.of("10.0.0.0/8")), clock);

    @Test
    void anUntrustedPeersForwardedForIsReportedAtOnceThenAtMostOnceAMinute(CapturedOutput output) {
        assertThat(addresses.of(request("192.0.2.10", "198.51.100.7"))).isEqualTo("192.0.2.10");
        addresses.of(request("192.0.2.11", "198.51.100.8"));
        clock.advance(Duration.ofMillis(59_999));
        addresses.of(request("192.0.2.12", "198.51.100.9"));
        assertThat(count(output)).isEqualTo(1);
        assertThat(output.getAll()).contains(WARNING + "192.0.2.10").contains("queuegate.trusted-proxies");
        clock.advance(Duration.ofMillis(1));
        addresses.of(request("192.0.2.13", "198.51.100.10"));
        assertThat(count(output)).isEqualTo(2);
    }

    @Test
    void saysNothingForATrustedPeerOrARequestWithoutTheHeader(CapturedOutput output) {
        assertThat(addresses.of(request("10.0.0.2", "198.51.100.7"))).isEqualTo("198.51.100.7");
        assertThat(addresses.of(request("192.0.2.10", null))).isEqualTo("192.0.2.10");
        assertThat(count(output)).isZero();
    }

    private static int count(CapturedOutput output) {
        return output.getAll().split(WARNING, -1).length - 1;
    }

    private static MockServerHttpRequest request(String peer, String forwardedFor) {
        MockServerHttpRequest.BaseBuilder<?> builder = MockServerHttpRequest.get("/api/products/42")
                .remoteAddress(new InetSocketAddress(peer, 40000));
        if (forwardedFor != null) {
            builder.header("X-Forwarded-For", forwardedFor);
        }
        return builder.build();
    }
}
