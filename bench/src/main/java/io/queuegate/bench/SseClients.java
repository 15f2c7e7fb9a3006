package io.queuegate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.handler.codec.http.HttpHeaderNames;

import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * Waiting pages for {@link Crowd}, in a JVM of their own so the gateway's heap holds only its own
 * side of the connections: opens one event stream per "user token" line of a file, prints
 * {@code open <n>} once all are open, then {@code events <n>} every ten seconds, until killed.
 *
 * <p>Arguments: the gateway's base URL, the product, the tokens file.
 */
public final class SseClients {

    private SseClients() {
    }

    public static void main(String[] args) throws Exception {
        String base = args[0];
        String product = args[1];
        List<String> lines = Files.readAllLines(Path.of(args[2]));
        ConnectionProvider connections = ConnectionProvider.builder("waiting-pages").maxConnections(lines.size())
                .pendingAcquireMaxCount(-1).build();
        HttpClient http = HttpClient.create(connections).runOn(LoopResources.create("pages", 2, true))
                .baseUrl(base).responseTimeout(Duration.ofHours(1));
        AtomicLong open = new AtomicLong();
        AtomicLong events = new AtomicLong();
        CountDownLatch allOpen = new CountDownLatch(lines.size());
        // About a thousand new pages a second, as a crowd arriving would open them.
        Flux.interval(Duration.ofMillis(1)).take(lines.size()).map(i -> lines.get(i.intValue())).flatMap(line -> {
            String[] parts = line.split(" ");
            return http.headers(headers -> headers.set("X-User-Id", parts[0]).set("Queue-Token", parts[1])
                            .set(HttpHeaderNames.ACCEPT, "text/event-stream"))
                    .get().uri("/queue/" + product + "/events")
                    .response((response, body) -> {
                        if (response.status().code() == 200) {
                            open.incrementAndGet();
                        }
                        allOpen.countDown();
                        return body.asString().doOnNext(chunk -> events.incrementAndGet());
                    })
                    .onErrorResume(error -> Flux.empty());
        }, lines.size()).subscribe();
        allOpen.await();
        System.out.println("open " + open.get());
        while (true) {
            Thread.sleep(10_000);
            System.out.println("events " + events.get());
        }
    }
}
