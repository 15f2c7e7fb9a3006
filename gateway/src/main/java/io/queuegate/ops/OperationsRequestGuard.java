package io.queuegate.ops;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
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
 * act for themselves. It also serves the console page with its Content-Security-Policy and
 * forbids framing it.
 */
public class OperationsRequestGuard implements WebFilter, Ordered {

    /** Early, before any handler; after Spring Security's chain (-100), which may authenticate first. */
    public static final int ORDER = -50;

    private static final EndpointId QUEUES = EndpointId.of("queues");
    private static final EndpointId CONSOLE = EndpointId.of("queueconsole");
    private static final Set<HttpMethod> SAFE = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS,
            HttpMethod.TRACE);
    private static final byte[] REFUSAL = ("{\"error\":\"cross_site_request\",\"message\":\"changes to the queues "
            + "must come from the console's own origin or from a client that is not a browser\"}")
            .getBytes(StandardCharsets.UTF_8);

    private final ObjectProvider<PathMappedEndpoints> endpoints;
    private final ObjectProvider<ConsolePage> console;
    /** The two paths, resolved at the first request (endpoints are fixed once the context runs). */
    private volatile Paths paths;

    public OperationsRequestGuard(ObjectProvider<PathMappedEndpoints> endpoints, ObjectProvider<ConsolePage> console) {
        this.endpoints = endpoints;
        this.console = console;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        Paths known = paths();
        ServerHttpRequest request = exchange.getRequest();
        String path = request.getPath().pathWithinApplication().value();
        String queues = known.queues();
        if (queues != null && !SAFE.contains(request.getMethod())
                && (path.equals(queues) || path.startsWith(queues + "/")) && crossSite(request)) {
            return refuse(exchange.getResponse());
        }
        ConsolePage consolePage = known.page();
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

    private record Paths(String queues, String console, ConsolePage page) {
    }

    /** Whether the browser says the request comes from another origin. */
    static boolean crossSite(ServerHttpRequest request) {
        String fetchSite = request.getHeaders().getFirst("Sec-Fetch-Site");
        if (fetchSite != null) {
            String site = fetchSite.trim().toLowerCase(Locale.ROOT);
            return !site.equals("same-origin") && !site.equals("none");
        }
        String origin = request.getHeaders().getFirst(HttpHeaders.ORIGIN);
        return origin != null && !sameOrigin(origin, request.getURI());
    }

    private static boolean sameOrigin(String origin, URI target) {
        try {
            URI from = URI.create(origin.trim());
            return from.getScheme() != null && from.getHost() != null
                    && from.getScheme().equalsIgnoreCase(target.getScheme())
                    && from.getHost().equalsIgnoreCase(target.getHost())
                    && port(from) == port(target);
        }
        catch (IllegalArgumentException notAUri) {
            // "null" (a sandboxed or file page) and garbage are no origin of ours.
            return false;
        }
    }

    private static int port(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    private static Mono<Void> refuse(ServerHttpResponse response) {
        response.setStatusCode(HttpStatus.FORBIDDEN);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        response.getHeaders().setCacheControl("no-store");
        return response.writeWith(Mono.just(response.bufferFactory().wrap(REFUSAL)));
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
