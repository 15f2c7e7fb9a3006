package io.queuegate.admission;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The address of the client behind a request, for limiting anonymous joins. {@code
 * X-Forwarded-For} is believed only as far as it was written by configured trusted proxies:
 * walking it from the right, the first address that is not a trusted proxy is the client. A
 * client cannot choose its own address by sending the header, because the first untrusted hop
 * stops the walk.
 */
public final class ClientAddresses {

    private final List<Cidr> trustedProxies;

    /** @param trustedProxies addresses or CIDR blocks, such as {@code 10.0.0.0/8} or {@code ::1} */
    public ClientAddresses(List<String> trustedProxies) {
        this.trustedProxies = trustedProxies.stream().map(Cidr::parse).toList();
    }

    public String of(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        String peer = remote == null || remote.getAddress() == null ? "unknown" : remote.getAddress().getHostAddress();
        if (!isTrusted(peer)) {
            return peer;
        }
        List<String> forwarded = request.getHeaders().getOrEmpty("X-Forwarded-For").stream()
                .flatMap(value -> java.util.Arrays.stream(value.split(",")))
                .map(String::trim)
                .filter(hop -> !hop.isEmpty())
                .toList();
        for (int i = forwarded.size() - 1; i >= 0; i--) {
            if (!isTrusted(forwarded.get(i))) {
                return forwarded.get(i);
            }
        }
        return forwarded.isEmpty() ? peer : forwarded.get(0);
    }

    private boolean isTrusted(String address) {
        return trustedProxies.stream().anyMatch(cidr -> cidr.contains(address));
    }

    /** An address block; only literal addresses are accepted, so nothing here does DNS. */
    private record Cidr(byte[] network, int prefix) {

        static Cidr parse(String text) {
            String[] parts = text.trim().split("/", 2);
            byte[] address = literal(parts[0]);
            if (address == null) {
                throw new IllegalArgumentException("queuegate.joins.trusted-proxies: '" + text
                        + "' is not an IP address or CIDR block");
            }
            int prefix = parts.length == 2 ? Integer.parseInt(parts[1]) : address.length * 8;
            if (prefix < 0 || prefix > address.length * 8) {
                throw new IllegalArgumentException("queuegate.joins.trusted-proxies: bad prefix in '" + text + "'");
            }
            return new Cidr(address, prefix);
        }

        boolean contains(String text) {
            byte[] address = literal(text);
            if (address == null || address.length != network.length) {
                return false;
            }
            int full = prefix / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            return rest == 0 || ((address[full] ^ network[full]) & (0xFF << (8 - rest))) == 0;
        }

        private static byte[] literal(String text) {
            // Only digits, dots, colons and hex: InetAddress then parses without a lookup.
            if (text.isEmpty() || !text.matches("[0-9A-Fa-f:.]+")) {
                return null;
            }
            try {
                return InetAddress.getByName(text).getAddress();
            }
            catch (UnknownHostException ex) {
                return null;
            }
        }
    }
}
