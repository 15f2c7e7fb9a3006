package io.queuegate.identity;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class IgnoredIdentityHeadersTest {

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final IgnoredIdentityHeaders ignored = new IgnoredIdentityHeaders("X-User-Id", new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }
    });

    @Test
    void warnsAtOnceThenAtMostOnceAMinute(CapturedOutput output) {
        ignored.check(exchange("alice"), "a test");
        ignored.check(exchange("bob"), "a test");
        now.addAndGet(59_999);
        ignored.check(exchange("carol"), "a test");
        assertThat(count(output)).isEqualTo(1);
        assertThat(output.getAll()).contains("Ignored the identity header X-User-Id from 203.0.113.9 (a test)");
        now.addAndGet(1);
        ignored.check(exchange("dave"), "a test");
        assertThat(count(output)).isEqualTo(2);
    }

    @Test
    void saysNothingWhenNoIdentityHeaderCame(CapturedOutput output) {
        ignored.check(MockServerWebExchange.from(MockServerHttpRequest.get("/")), "a test");
        assertThat(count(output)).isZero();
    }

    private static int count(CapturedOutput output) {
        return output.getAll().split("Ignored the identity header", -1).length - 1;
    }

    private static MockServerWebExchange exchange(String user) {
        return MockServerWebExchange.from(MockServerHttpRequest.get("/api/products/42").header("X-User-Id", user)
                .remoteAddress(new InetSocketAddress("203.0.113.9", 4000)));
    }
}
