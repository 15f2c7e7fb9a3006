package io.queuegate.bench;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.admission.ActiveCache;
import io.queuegate.app.QueueGateApplication;
import io.queuegate.paths.CanonicalPathFilter;
import io.queuegate.paths.TrailingSlashFilter;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;
import io.queuegate.web.AmbiguousCredentialsFilter;
import io.queuegate.web.ForwardedRequestHeaders;
import io.queuegate.web.QueueAdmissionFilter;
import io.queuegate.web.StreamLeaseRelease;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.WeightCalculatorWebFilter;
import org.springframework.cloud.gateway.handler.RoutePredicateHandlerMapping;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.handler.DefaultWebFilterChain;

import reactor.core.publisher.Mono;

/**
 * What QueueGate's own pieces cost a request, in the processor time of one thread, without a
 * network, a second JVM or a load generator: on a machine whose speed wanders between wrk rounds,
 * these move far less. Each is the median of rounds of a million calls, the cases taken in turn
 * after all are warmed. On a route without a queue: the web filter chain with four and eight empty
 * filters (what one more web filter costs by itself), with QueueGate's four web filters as they
 * pass a shopper's request through, and the forwarded-header filter over a browser's request
 * headers. On the queued route, with the beans of a runnable gateway on a real Redis: the queue
 * filter over an admitted shopper's request decided from memory, and the forwarded-header filter
 * leaving that request's token out; and what WebFlux's handler mappings before the gateway's cost a
 * request bound for a route.
 */
public final class FilterCosts {

    private static final int CALLS = 1_000_000;
    private static final int ROUNDS = 7;
    private static final String PRODUCT = "a";
    private static final String SHOPPER = "bench-shopper";

    /** A browser's request for a product page, as a shop's gateway sees it behind its proxy. */
    private static final MockServerHttpRequest.BaseBuilder<?> BROWSER = MockServerHttpRequest
            .get("/plain/api/products/1")
            .header(HttpHeaders.HOST, "shop.example")
            .header(HttpHeaders.USER_AGENT, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36")
            .header(HttpHeaders.ACCEPT, "application/json")
            .header(HttpHeaders.ACCEPT_LANGUAGE, "en-GB,en;q=0.9,ko;q=0.8")
            .header(HttpHeaders.ACCEPT_ENCODING, "gzip, deflate, br")
            .header(HttpHeaders.REFERER, "https://shop.example/products/1")
            .header(HttpHeaders.COOKIE, "session=9f8e7d6c5b4a; theme=dark")
            .header("X-Forwarded-For", "203.0.113.7")
            .header("X-Forwarded-Proto", "https")
            .header("X-User-Id", "shopper-1")
            .header("Sec-Fetch-Site", "same-origin")
            .header("Sec-Fetch-Mode", "cors");

    private FilterCosts() {
    }

    public static void main(String[] args) throws Exception {
        Path out = args.length > 0 ? Path.of(args[0]) : null;
        String load = Machine.loadAverage();
        try (RedisProcess redis = RedisProcess.start()) {
            WireMockServer shop = Backend.start();
            Map<String, Object> properties = GatewayInstance.defaults(redis, shop.baseUrl(),
                    Map.of("max-active", "1000000"));
            properties.put("management.server.port", "0");
            // The runnable gateway as shipped: its Spring Security lets shoppers through to the routes.
            GatewayInstance gateway = GatewayInstance.start(QueueGateApplication.class, properties);
            try {
                measure(out, load, gateway);
            }
            finally {
                gateway.close();
                shop.stop();
            }
        }
    }

    private static void measure(Path out, String load, GatewayInstance gateway) throws Exception {
        WebHandler handler = exchange -> Mono.empty();
        // Built as the auto-configuration builds them; their refusals (which need the answer
        // writers and the events) never happen on this canonical path.
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        List<WebFilter> queueGate = List.of(new StreamLeaseRelease(), new CanonicalPathFilter(null, null),
                new AmbiguousCredentialsFilter("X-User-Id", exchange -> true, null, null),
                new TrailingSlashFilter(beans.getBeanProvider(RouteLocator.class),
                        beans.getBeanProvider(WeightCalculatorWebFilter.class), null, null));
        ForwardedRequestHeaders forwarded = new ForwardedRequestHeaders("X-User-Id", exchange -> true);
        MockServerWebExchange exchange = MockServerWebExchange.from(BROWSER);
        HttpHeaders headers = exchange.getRequest().getHeaders();
        // An admitted shopper's request on the queued route, as the gateway's own beans (on a real
        // Redis) see it once the route matched: the pass is remembered, so no Redis call is made.
        String token = gateway.client().get().uri("/api/products/" + PRODUCT).header("X-User-Id", SHOPPER).exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        Route queued = gateway.bean(RouteLocator.class).getRoutes().filter(route -> route.getId().equals("products"))
                .blockFirst();
        QueueAdmissionFilter admission = gateway.bean(QueueAdmissionFilter.class);
        ActiveCache passes = gateway.bean(ActiveCache.class);
        int[] forwards = new int[1];
        GatewayFilterChain shopChain = forwardedExchange -> {
            forwards[0]++;
            return Mono.empty();
        };
        HttpHeaders shopperHeaders = new HttpHeaders();
        shopperHeaders.addAll(BROWSER.build().getHeaders());
        shopperHeaders.set("X-User-Id", SHOPPER);
        shopperHeaders.set("Queue-Token", token);
        long[] calls = new long[1];
        Supplier<ServerWebExchange> admitted = () -> {
            // The pass lives a second of real time: renewed here, as an answer from Redis would.
            if (calls[0]++ % 10_000 == 0) {
                passes.remember(PRODUCT, SHOPPER);
            }
            return admittedExchange(queued, shopperHeaders);
        };
        ServerWebExchange withToken = admittedExchange(queued, shopperHeaders);
        HttpHeaders tokenHeaders = withToken.getRequest().getHeaders();
        // WebFlux asks its handler mappings in order; every one before the gateway's is asked about
        // every request the gateway forwards.
        List<HandlerMapping> beforeRoutes = new ArrayList<>();
        for (HandlerMapping mapping : gateway.bean(DispatcherHandler.class).getHandlerMappings()) {
            if (mapping instanceof RoutePredicateHandlerMapping) {
                break;
            }
            beforeRoutes.add(mapping);
        }
        // Its path parsed, as the canonical-path filter and every route predicate need it anyway
        // before a mapping is asked.
        Supplier<ServerWebExchange> browser = () -> {
            MockServerWebExchange request = MockServerWebExchange.from(BROWSER);
            request.getRequest().getPath().pathWithinApplication();
            return request;
        };
        Supplier<?> mapped = () -> {
            ServerWebExchange request = browser.get();
            for (HandlerMapping mapping : beforeRoutes) {
                mapping.getHandler(request).subscribe(found -> {
                    throw new IllegalStateException(mapping + " took a request for a route");
                });
            }
            return request;
        };
        List<Supplier<?>> cases = List.of(chain(handler, empty(4)), chain(handler, empty(8)), chain(handler, queueGate),
                () -> forwarded.filter(headers, exchange), admitted,
                () -> admission.filter(admitted.get(), shopChain).subscribe(),
                () -> HttpHeaders.copyOf(tokenHeaders),
                () -> forwarded.filter(HttpHeaders.copyOf(tokenHeaders), withToken), browser, mapped);
        // Every case is warmed before any is timed, and the rounds take them in turn: the chain's
        // one call site of a filter then sees all the filter classes (as in a gateway, where many
        // kinds pass through it), whichever case is timed, and a slower spell of the machine
        // falls on every case alike.
        double[][] rounds = new double[cases.size()][ROUNDS];
        long sink = 0;
        for (Supplier<?> call : cases) {
            sink += time(call, new double[1], 0);
        }
        int forwardsBefore = forwards[0];
        for (int round = 0; round < ROUNDS; round++) {
            for (int c = 0; c < cases.size(); c++) {
                sink += time(cases.get(c), rounds[c], round);
            }
        }
        if (forwards[0] - forwardsBefore != (long) ROUNDS * CALLS) {
            throw new IllegalStateException("the admitted request was not forwarded every time: "
                    + (forwards[0] - forwardsBefore) + " of " + (long) ROUNDS * CALLS);
        }
        if (forwarded.filter(HttpHeaders.copyOf(tokenHeaders), withToken).containsHeader("Queue-Token")) {
            throw new IllegalStateException("the forwarded-header filter left the token in");
        }
        double empty4 = Rounds.median(rounds[0]);
        double empty8 = Rounds.median(rounds[1]);
        double own = Rounds.median(rounds[2]);
        double fresh = Rounds.median(rounds[4]);
        List<String> rows = List.of(
                row("the chain with 4 empty web filters", rounds[0], ""),
                // Per filter from four to eight, not from none: the chain with no filter at all
                // takes another, shorter way through DefaultWebFilterChain.
                row("the chain with 8 empty web filters", rounds[1],
                        String.format(Locale.ROOT, "%.0f ns a filter", (empty8 - empty4) / 4)),
                row("the chain with QueueGate's four web filters (stream lease, canonical path, ambiguous credentials, "
                        + "trailing slash)", rounds[2],
                        String.format(Locale.ROOT, "%.0f ns more than four empty ones", own - empty4)),
                row("the forwarded-header filter over a browser's " + headers.size()
                        + " request headers (nothing to change)", rounds[3], ""),
                row("a fresh exchange of an admitted shopper's request (the browser's headers and the token): "
                        + "what the next row includes", rounds[4], ""),
                row("the queue filter over it (the pass remembered, no Redis call), forwarded to an empty chain",
                        rounds[5], String.format(Locale.ROOT, "%.0f ns more than the exchange alone",
                                Rounds.median(rounds[5]) - fresh)),
                row("a copy of the admitted request's " + tokenHeaders.size() + " headers, as the gateway's "
                        + "hop-by-hop header filter makes for every forwarded request: what the next row includes",
                        rounds[6], ""),
                row("the forwarded-header filter over that copy (the token to leave out, in place)", rounds[7],
                        String.format(Locale.ROOT, "%.0f ns more than the copy alone",
                                Rounds.median(rounds[7]) - Rounds.median(rounds[6]))),
                row("a fresh exchange of the browser's request, its path parsed: what the next row includes", rounds[8],
                        ""),
                row("the handler mappings WebFlux asks before the gateway's routes, about it ("
                        + beforeRoutes.stream().map(mapping -> mapping.getClass().getSimpleName())
                                .collect(Collectors.joining(", ")) + ")", rounds[9],
                        String.format(Locale.ROOT, "%.0f ns more than the exchange alone",
                                Rounds.median(rounds[9]) - Rounds.median(rounds[8]))));

        String report = "# QueueGate's own pieces of a request\n\nMeasured by `bench/run filter-costs` on "
                + Instant.now() + ", commit `" + Machine.git("rev-parse", "--short", "HEAD") + "`" + Machine.uncommitted()
                + ".\n\nMachine: " + Machine.describe() + ". Load average at start " + load + ". One thread, in the "
                + "bench's JVM, no network: every case is warmed by a round of " + String.format(Locale.ROOT, "%,d", CALLS)
                + " calls, then " + ROUNDS + " rounds take the cases in turn, " + String.format(Locale.ROOT, "%,d", CALLS)
                + " calls each; the median of the rounds, and the fastest and slowest round. The exchange is answered by "
                + "an empty handler (`Mono.empty()`) and subscribed at once. The queued route's rows use the beans of a "
                + "runnable gateway started in the bench's JVM on a real Redis (with the tests' product route, "
                + "max-active 10^6), its route as matched, and a shopper admitted beforehand whose pass is kept "
                + "remembered, so every call is decided from memory and forwarded. A figure of one thread still moves "
                + "with the machine's speed, but far less than a wrk round's.\n\n"
                + "| what runs | ns a request (median) | fastest – slowest round | |\n|---|---|---|---|\n"
                + String.join("\n", rows) + "\n";
        System.out.println(report);
        System.out.println("(calls that returned nothing: " + sink + ")");
        if (out != null) {
            Files.writeString(out, report);
        }
    }

    /** The admitted shopper's request as it reaches the queue filter: the route matched, its product taken from the path. */
    private static ServerWebExchange admittedExchange(Route route, HttpHeaders headers) {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/api/products/" + PRODUCT)
                .remoteAddress(new InetSocketAddress("127.0.0.1", 40_000))
                .headers(headers));
        exchange.getAttributes().put(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR, route);
        ServerWebExchangeUtils.putUriTemplateVariables(exchange, Map.of("productId", PRODUCT));
        return exchange;
    }

    private static String row(String what, double[] rounds, String note) {
        double[] sorted = rounds.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "| %s | %.0f | %.0f – %.0f | %s |", what, Rounds.median(rounds), sorted[0],
                sorted[sorted.length - 1], note);
    }

    private static List<WebFilter> empty(int count) {
        List<WebFilter> filters = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            filters.add(new PassThrough());
        }
        return filters;
    }

    private static Supplier<?> chain(WebHandler handler, List<WebFilter> filters) {
        DefaultWebFilterChain chain = new DefaultWebFilterChain(handler, filters);
        MockServerWebExchange exchange = MockServerWebExchange.from(BROWSER);
        return () -> chain.filter(exchange).subscribe();
    }

    /**
     * Times CALLS calls into {@code rounds[round]} (ns a call); returns how many returned nothing
     * (none should), which the caller prints, so no call's result is left unused.
     */
    private static long time(Supplier<?> call, double[] rounds, int round) {
        long sink = 0;
        long start = System.nanoTime();
        for (int i = 0; i < CALLS; i++) {
            if (call.get() == null) {
                sink++;
            }
        }
        rounds[round] = (System.nanoTime() - start) / (double) CALLS;
        return sink;
    }

    /** A web filter that only passes the exchange on: what the chain itself costs a filter. */
    private static final class PassThrough implements WebFilter {

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, org.springframework.web.server.WebFilterChain chain) {
            return chain.filter(exchange);
        }
    }
}
