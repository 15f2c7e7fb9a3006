package io.queuegate.live;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamLimitsTest {

    private final StreamLimits limits = new StreamLimits(2, 3);

    @Test
    void aShopperGetsAsManyStreamsAsAllowedAndOneMoreOnlyWhenOneCloses() {
        StreamLimits.Lease first = limits.open("42", "alice", "203.0.113.1");
        StreamLimits.Lease second = limits.open("42", "alice", "203.0.113.1");
        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        assertThat(limits.open("42", "alice", "203.0.113.2")).as("a third, from anywhere").isNull();
        first.close();
        first.close();
        assertThat(limits.open("42", "alice", "203.0.113.1")).as("after one closed (closing twice counts once)")
                .isNotNull();
        assertThat(limits.open("42", "alice", "203.0.113.1")).isNull();
    }

    @Test
    void anAddressGetsItsOwnCapAcrossShoppers() {
        assertThat(limits.open("42", "a", "198.51.100.1")).isNotNull();
        assertThat(limits.open("42", "b", "198.51.100.1")).isNotNull();
        assertThat(limits.open("7", "c", "198.51.100.1")).isNotNull();
        assertThat(limits.open("42", "d", "198.51.100.1")).isNull();
        // The refused shopper's own count was given back.
        assertThat(limits.count("s\u000042\u0000d")).isZero();
    }

    @Test
    void closedStreamsLeaveNothingBehind() {
        StreamLimits.Lease lease = limits.open("42", "alice", "203.0.113.1");
        lease.close();
        assertThat(limits.count("s\u000042\u0000alice")).isZero();
        assertThat(limits.count("a\u0000203.0.113.1")).isZero();
    }
}
