package io.queuegate.identity;

import java.net.InetAddress;
import java.util.List;

/**
 * The proxies in front of the gateway ({@code queuegate.trusted-proxies}): addresses or CIDR
 * blocks whose identity header and {@code X-Forwarded-For} are believed. Only literal addresses
 * are accepted ({@link IpLiteral}), so nothing here ever does a DNS lookup.
 */
public final class TrustedProxies {

    private final List<Block> blocks;

    /** @param entries addresses or CIDR blocks, such as {@code 10.0.0.0/8} or {@code ::1} */
    public TrustedProxies(List<String> entries) {
        this.blocks = entries.stream().map(Block::parse).toList();
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    public boolean contains(InetAddress address) {
        return address != null && contains(address.getAddress());
    }

    /**
     * Whether a hop of {@code X-Forwarded-For} is trusted: a literal address, possibly with a port
     * or in brackets ({@link IpLiteral#hop}); anything else is not.
     */
    public boolean contains(String hop) {
        byte[] bytes = IpLiteral.hop(hop);
        return bytes != null && contains(bytes);
    }

    boolean contains(byte[] bytes) {
        for (Block block : blocks) {
            if (block.contains(bytes)) {
                return true;
            }
        }
        return false;
    }

    private record Block(byte[] network, int prefix) {

        static Block parse(String text) {
            String[] parts = text.trim().split("/", 2);
            byte[] address = IpLiteral.parse(parts[0].trim());
            if (address == null) {
                throw new IllegalArgumentException("queuegate.trusted-proxies: '" + text
                        + "' is not an IP address or CIDR block");
            }
            int prefix;
            try {
                prefix = parts.length == 2 ? Integer.parseInt(parts[1]) : address.length * 8;
            }
            catch (NumberFormatException ex) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > address.length * 8) {
                throw new IllegalArgumentException("queuegate.trusted-proxies: bad prefix in '" + text + "'");
            }
            return new Block(address, prefix);
        }

        boolean contains(byte[] address) {
            if (address.length != network.length) {
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
    }
}
