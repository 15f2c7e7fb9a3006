package io.queuegate.ops;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.queuegate.identity.IpLiteral;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The names under which the management port takes changes and serves the console. A page of
 * another site can have its own name resolve to the gateway's address (DNS rebinding): its
 * browser then sends that name as {@code Host}, marks the request same-origin and carries no
 * tell-tale {@code Origin} of another host, so the name it sends is what gives it away. Allowed
 * are always the loopback names and addresses ({@code localhost}, {@code 127.0.0.1},
 * {@code ::1}, what {@code kubectl port-forward} and an SSH tunnel arrive under) and this
 * machine's own host name and addresses (what a pod's IP or name is), plus the configured ones;
 * {@code *} allows any. Addresses compare as addresses, whatever their spelling; names without
 * case and a trailing dot; a port is not compared. Nothing here asks DNS about a request.
 */
public final class AllowedHosts {

    private static final Log log = LogFactory.getLog(AllowedHosts.class);
    private static final String ANY = "*";

    private final Set<String> names;
    private final Set<String> addresses;
    private final boolean any;

    private AllowedHosts(Set<String> names, Set<String> addresses, boolean any) {
        this.names = Collections.unmodifiableSet(names);
        this.addresses = Collections.unmodifiableSet(addresses);
        this.any = any;
    }

    /** The loopback names, this machine's names and addresses, and {@code configured}. */
    public static AllowedHosts of(Collection<String> configured) {
        List<String> all = new ArrayList<>(List.of("localhost", "127.0.0.1", "::1"));
        all.addAll(ownNamesAndAddresses());
        all.addAll(configured);
        return only(all);
    }

    /** Exactly {@code hosts}, without the machine's own. */
    static AllowedHosts only(Collection<String> hosts) {
        Set<String> names = new LinkedHashSet<>();
        Set<String> addresses = new LinkedHashSet<>();
        boolean any = false;
        for (String host : hosts) {
            if (host == null || host.isBlank()) {
                continue;
            }
            String trimmed = host.trim();
            if (trimmed.equals(ANY)) {
                any = true;
                continue;
            }
            byte[] address = IpLiteral.hop(trimmed);
            if (address != null) {
                addresses.add(HexFormat.of().formatHex(address));
            }
            else {
                names.add(name(trimmed));
            }
        }
        return new AllowedHosts(names, addresses, any);
    }

    /**
     * Whether a request with this {@code Host} header may act. No header at all is a client that
     * is not a browser (HTTP/1.0): a browser always sends one, so a page cannot hide behind that.
     */
    public boolean allows(String hostHeader) {
        if (any || hostHeader == null) {
            return true;
        }
        String host = hostHeader.trim();
        byte[] address = IpLiteral.hop(host);
        if (address != null) {
            return addresses.contains(HexFormat.of().formatHex(address));
        }
        return names.contains(name(host));
    }

    /** Every allowed name and address, as configured and found, for the startup log and for tests. */
    public List<String> describe() {
        if (any) {
            return List.of(ANY);
        }
        List<String> all = new ArrayList<>(names);
        addresses.forEach(hex -> all.add(text(HexFormat.of().parseHex(hex))));
        return all;
    }

    /** A host name without its port, in lower case, without the trailing dot of a fully qualified name. */
    private static String name(String host) {
        String name = host;
        int colon = name.lastIndexOf(':');
        if (colon >= 0 && name.indexOf(':') == colon && name.substring(colon + 1).chars().allMatch(Character::isDigit)) {
            name = name.substring(0, colon);
        }
        name = name.toLowerCase(Locale.ROOT);
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    private static String text(byte[] address) {
        try {
            return InetAddress.getByAddress(address).getHostAddress();
        }
        catch (UnknownHostException notFourOrSixteenBytes) {
            return HexFormat.of().formatHex(address);
        }
    }

    /**
     * This machine's host name and the addresses of its interfaces. Asked once, at startup (Spring
     * Boot's startup log asks the JVM for the local host too, so the answer is usually cached).
     */
    private static List<String> ownNamesAndAddresses() {
        List<String> own = new ArrayList<>();
        try {
            own.add(InetAddress.getLocalHost().getHostName());
        }
        catch (UnknownHostException | SecurityException unresolvable) {
            log.debug("This machine's host name is not known to the JVM, so the management port does not "
                    + "allow it as Host: " + unresolvable.getMessage());
        }
        try {
            for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(network.getInetAddresses())) {
                    own.add(text(address.getAddress()));
                }
            }
        }
        catch (SocketException | SecurityException unreadable) {
            log.debug("This machine's addresses cannot be read, so the management port allows only the loopback "
                    + "and configured hosts: " + unreadable.getMessage());
        }
        return own;
    }
}
