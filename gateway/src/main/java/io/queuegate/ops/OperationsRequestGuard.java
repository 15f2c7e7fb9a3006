package io.queuegate.ops;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import io.queuegate.identity.RequestOrigin;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Mono;

/**
 * Keeps other sites from steering the queues through an operator's browser. An operator who has
 * the console (or any page of the management port) open is a browser that may reach
 * {@code /actuator/queues}; a page of another site could make that browser send a change. The
 * actuator already refuses a change that is not JSON, which a plain cross-site form cannot send;
 * this refuses, with {@code 403 cross_site_request}, any change the browser itself marks as coming
 * from another origin ({@code Sec-Fetch-Site} other than {@code same-origin} or {@code none}, or
 * an {@code Origin} that is not the request's own), so a lax CORS setting cannot open it either.
 * Clients that are not browsers (curl, scripts) send neither header and are let through: they
 * act for themselves.
 * <p>
 * A page whose own name resolves to the gateway (DNS rebinding) is same-origin by its browser's
 * account, so the request's own {@code Host} proves nothing: every change on the management port
 * (and on the queues endpoint wherever it is served) and every request for the console must name
 * one of the {@link AllowedHosts}, or it is refused with {@code 421 host_not_allowed}. What probes
 * and scrapers read is not checked: they ask by a pod's address or a Service's name, and reading
 * steers nothing. It also serves the console page with its Content-Security-Policy and forbids
 * framing it.
 */
public class OperationsRequestGuard implements WebFilter, Ordered {

    /**
     * Before Spring Security's chain (-100): a rebinding page is refused before a login is asked
     * for, so its browser never shows a login prompt under the attacker's name.
     */
    public static final int ORDER = -101;

    private static final EndpointId QUEUES = EndpointId.of("queues");
    private static final EndpointId CONSOLE = EndpointId.of("queueconsole");
    private static final Set<HttpMethod> SAFE = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS,
            HttpMethod.TRACE);
    private static final byte[] REFUSAL = ("{\"error\":\"cross_site_request\",\"message\":\"changes to the queues "
            + "must come from the console's own origin or from a client that is not a browser\"}")
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] UNKNOWN_HOST = ("{\"error\":\"host_not_allowed\",\"message\":\"the management port "
            + "takes changes and serves the console only under its own names (queuegate.operations.allowed-hosts)\"}")
            .getBytes(StandardCharsets.UTF_8);
    private static final String MANAGEMENT = WebServerNamespace.MANAGEMENT.getValue();

    private final ObjectProvider<PathMappedEndpoints> endpoints;
    private final ObjectProvider<? extends ManagementPage> console;
    private final AllowedHosts hosts;
    /** The two paths, resolved at the first request (endpoints are fixed once the context runs). */
    private volatile Paths paths;

    /** Allows the loopback names and this machine's own names and addresses only. */
    public OperationsRequestGuard(ObjectProvider<PathMappedEndpoints> endpoints,
            ObjectProvider<? extends ManagementPage> console) {
        this(endpoints, console, AllowedHosts.of(java.util.List.of()));
    }

    public OperationsRequestGuard(ObjectProvider<PathMappedEndpoints> endpoints,
            ObjectProvider<? extends ManagementPage> console, AllowedHosts hosts) {
        this.endpoints = endpoints;
        this.console = console;
        this.hosts = hosts;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        Paths known = paths();
        ServerHttpRequest request = exchange.getRequest();
        String path = request.getPath().pathWithinApplication().value();
        boolean change = !SAFE.contains(request.getMethod());
        boolean consolePath = known.console() != null && under(path, known.console());
        if (consolePath || change && (onManagementServer(exchange) || known.queues() != null
                && under(path, known.queues()))) {
            if (!hosts.allows(request.getHeaders().getFirst(HttpHeaders.HOST))) {
                return refuse(exchange.getResponse(), HttpStatus.MISDIRECTED_REQUEST, UNKNOWN_HOST);
            }
            if (change && crossSite(request)) {
                return refuse(exchange.getResponse(), HttpStatus.FORBIDDEN, REFUSAL);
            }
        }
        ManagementPage consolePage = known.page();
        if (consolePage != null && path.equals(known.console())) {
            HttpHeaders headers = exchange.getResponse().getHeaders();
            headers.set("Content-Security-Policy", consolePage.contentSecurityPolicy());
            headers.set("X-Frame-Options", "DENY");
            headers.set("X-Content-Type-Options", "nosniff");
            headers.set("Referrer-Policy", "no-referrer");
            headers.setCacheControl("no-store");
        }
        return chain.filter(exchange);
    }

    private static boolean under(String path, String root) {
        return path.startsWith(root) && (path.length() == root.length() || path.charAt(root.length()) == '/');
    }

    /** Whether the request came in on the actuator's own port, whatever number that port has. */
    public static boolean onManagementServer(ServerWebExchange exchange) {
        return WebServerApplicationContext.hasServerNamespace(exchange.getApplicationContext(), MANAGEMENT);
    }

    private Paths paths() {
        Paths known = paths;
        if (known == null) {
            PathMappedEndpoints mapped = endpoints.getIfAvailable();
            known = mapped == null ? new Paths(null, null, null)
                    : new Paths(mapped.getPath(QUEUES), mapped.getPath(CONSOLE), console.getIfAvailable());
            paths = known;
        }
        return known;
    }

    private record Paths(String queues, String console, ManagementPage page) {
    }

    /** Whether the browser says the request comes from another origin ({@link RequestOrigin#crossSite}). */
    static boolean crossSite(ServerHttpRequest request) {
        return RequestOrigin.crossSite(request);
    }

    private static Mono<Void> refuse(ServerHttpResponse response, HttpStatus status, byte[] body) {
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        response.getHeaders().setCacheControl("no-store");
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
