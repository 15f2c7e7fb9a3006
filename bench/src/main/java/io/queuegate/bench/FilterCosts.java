package io.queuegate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import io.queuegate.paths.CanonicalPathFilter;
import io.queuegate.paths.TrailingSlashFilter;
import io.queuegate.web.AmbiguousCredentialsFilter;
import io.queuegate.web.ForwardedRequestHeaders;
import io.queuegate.web.StreamLeaseRelease;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.cloud.gateway.filter.WeightCalculatorWebFilter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.handler.DefaultWebFilterChain;

import reactor.core.publisher.Mono;

/**
 * What QueueGate's own pieces cost a request on a route without a queue, in the processor time of
 * one thread, without a network, a second JVM or a load generator: on a machine whose speed
 * wanders between wrk rounds, these are figures that hold still. Each is the median of rounds of a
 * million calls after a warm-up: the web filter chain with four and eight empty filters (what one
 * more web filter costs by itself), with QueueGate's four web filters as they pass a shopper's request through,
 * and the forwarded-header filter over a browser's request headers.
 */
public final class FilterCosts {

    private static final int CALLS = 1_000_000;
    private static final int ROUNDS = 7;

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
        WebHandler handler = exchange -> Mono.empty();
        List<String> rows = new ArrayList<>();
        // Per filter from the difference between four and eight, not from none: the chain with no
        // filter at all takes another, shorter way through DefaultWebFilterChain.
        double empty4 = chain(handler, empty(4));
        double empty8 = chain(handler, empty(8));
        rows.add(row("the chain with 4 empty web filters", empty4, ""));
        rows.add(row("the chain with 8 empty web filters", empty8,
                String.format(Locale.ROOT, "%.0f ns a filter", (empty8 - empty4) / 4)));
        // Built as the auto-configuration builds them; their refusals (which need the answer
        // writers and the events) never happen on this canonical path.
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        List<WebFilter> queueGate = List.of(new StreamLeaseRelease(), new CanonicalPathFilter(null, null),
                new AmbiguousCredentialsFilter("X-User-Id", exchange -> true, null, null),
                new TrailingSlashFilter(beans.getBeanProvider(RouteLocator.class),
                        beans.getBeanProvider(WeightCalculatorWebFilter.class), null, null));
        double own = chain(handler, queueGate);
        rows.add(row("the chain with QueueGate's four web filters (stream lease, canonical path, ambiguous credentials, "
                + "trailing slash)", own, String.format(Locale.ROOT, "%.0f ns more than four empty ones", own - empty4)));
        ForwardedRequestHeaders forwarded = new ForwardedRequestHeaders("X-User-Id", exchange -> true);
        MockServerWebExchange exchange = MockServerWebExchange.from(BROWSER);
        HttpHeaders headers = exchange.getRequest().getHeaders();
        double headerFilter = time(() -> forwarded.filter(headers, exchange));
        rows.add(row("the forwarded-header filter over a browser's 13 request headers (nothing to change)", headerFilter,
                ""));

        String report = "# QueueGate's own pieces of a route without a queue\n\nMeasured by `bench/run filter-costs` on "
                + Instant.now() + ", commit `" + Machine.git("rev-parse", "--short", "HEAD") + "`" + Machine.uncommitted()
                + ".\n\nMachine: " + Machine.describe() + ". Load average at start " + load + ". One thread, in the "
                + "bench's JVM, no network: each figure is the median of " + ROUNDS + " rounds of "
                + String.format(Locale.ROOT, "%,d", CALLS) + " calls after a warm-up round, the exchange answered "
                + "by an empty handler (`Mono.empty()`) and subscribed at once.\n\n"
                + "| what runs | ns a request | |\n|---|---|---|\n" + String.join("\n", rows) + "\n";
        System.out.println(report);
        if (out != null) {
            Files.writeString(out, report);
        }
    }

    private static String row(String what, double nanos, String note) {
        return String.format(Locale.ROOT, "| %s | %.0f | %s |", what, nanos, note);
    }

    private static List<WebFilter> empty(int count) {
        List<WebFilter> filters = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            filters.add(new PassThrough());
        }
        return filters;
    }

    private static double chain(WebHandler handler, List<WebFilter> filters) {
        DefaultWebFilterChain chain = new DefaultWebFilterChain(handler, filters);
        MockServerWebExchange exchange = MockServerWebExchange.from(BROWSER);
        return time(() -> chain.filter(exchange).subscribe());
    }

    /** Nanoseconds a call: the median of the rounds after a warm-up round. */
    private static double time(Supplier<?> call) {
        double[] rounds = new double[ROUNDS];
        Object sink = null;
        for (int round = -1; round < ROUNDS; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < CALLS; i++) {
                sink = call.get();
            }
            if (round >= 0) {
                rounds[round] = (System.nanoTime() - start) / (double) CALLS;
            }
        }
        if (sink == null) {
            throw new IllegalStateException("nothing was called");
        }
        Arrays.sort(rounds);
        return rounds[ROUNDS / 2];
    }

    /** A web filter that only passes the exchange on: what the chain itself costs a filter. */
    private static final class PassThrough implements WebFilter {

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, org.springframework.web.server.WebFilterChain chain) {
            return chain.filter(exchange);
        }
    }
}
