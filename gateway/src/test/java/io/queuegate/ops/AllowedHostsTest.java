package io.queuegate.ops;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which {@code Host} a change to the management port may name. A DNS-rebinding page sends its
 * own name; the gateway's own names, however spelt, must still work, and no spelling of a
 * foreign name may pass for one of them.
 */
class AllowedHostsTest {

    @Test
    void allowsTheLoopbackNamesAndAddressesWithOrWithoutAPortHoweverSpelt() {
        AllowedHosts hosts = AllowedHosts.of(List.of());

        assertThat(List.of("localhost", "localhost:9090", "LOCALHOST:9090", "localhost.:9090", "127.0.0.1",
                "127.0.0.1:9090", "[::1]", "[::1]:9090", "[0:0:0:0:0:0:0:1]:9090", " localhost:9090 "))
                .allSatisfy(host -> assertThat(hosts.allows(host)).as(host).isTrue());
    }

    @Test
    void refusesForeignNamesAndLookalikes() {
        AllowedHosts hosts = AllowedHosts.of(List.of());

        assertThat(List.of("evil.example", "evil.example:9090", "localhost.evil.example", "evil.localhost",
                "127.0.0.1.nip.io", "0.0.0.0:9090", "127.0.0.2", "[::2]:9090", "10.1.2.3:9090", "", "localhost:9090:1",
                "[::1%25lo]:9090", "user@localhost"))
                .allSatisfy(host -> assertThat(hosts.allows(host)).as(host).isFalse());
    }

    @Test
    void allowsThisMachinesOwnNameAndAddresses() throws Exception {
        AllowedHosts hosts = AllowedHosts.of(List.of());

        assertThat(hosts.allows(InetAddress.getLocalHost().getHostName() + ":9090")).isTrue();
        for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress address : Collections.list(network.getInetAddresses())) {
                String literal = address.getHostAddress().replaceFirst("%.*$", "");
                String host = literal.contains(":") ? "[" + literal + "]:9090" : literal + ":9090";
                assertThat(hosts.allows(host)).as(host).isTrue();
            }
        }
    }

    @Test
    void addsTheConfiguredNamesAndAddresses() {
        AllowedHosts hosts = AllowedHosts.of(List.of("QueueGate-Management.shop.svc.cluster.local.", "10.1.2.3",
                "[fd00::7]", "ops.example.com:9090"));

        assertThat(hosts.allows("queuegate-management.shop.svc.cluster.local:9090")).isTrue();
        assertThat(hosts.allows("10.1.2.3:9090")).isTrue();
        assertThat(hosts.allows("[fd00:0:0:0:0:0:0:7]")).isTrue();
        assertThat(hosts.allows("ops.example.com")).isTrue();
        assertThat(hosts.allows("queuegate-management.shop.svc:9090")).as("only the names given").isFalse();
        assertThat(hosts.allows("localhost:9090")).as("the loopback stays allowed").isTrue();
    }

    @Test
    void aStarAllowsAnyAndNoHeaderIsNoBrowser() {
        assertThat(AllowedHosts.only(List.of("*")).allows("evil.example")).isTrue();
        assertThat(AllowedHosts.only(List.of("localhost")).allows(null)).isTrue();
        assertThat(AllowedHosts.only(List.of("localhost")).describe()).containsExactly("localhost");
    }
}
