package io.queuegate.ops;

import java.time.Duration;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Work the operations side repeats every period (the gauges' refresh, the console's samples), at
 * once on start and one run at a time: a run slower than its period skips ticks instead of piling
 * up behind itself, and a run that fails keeps the last values until the next.
 */
public final class Periodically {

    private final Duration period;
    private final Supplier<Mono<?>> work;
    private final Log log;
    private final String failure;
    private Disposable running;

    /** @param failure what the debug log says when a run fails, before the error */
    public Periodically(Duration period, Supplier<Mono<?>> work, Log log, String failure) {
        this.period = period;
        this.work = work;
        this.log = log;
        this.failure = failure;
    }

    public synchronized void start() {
        if (running != null) {
            return;
        }
        running = Flux.interval(Duration.ZERO, period)
                .onBackpressureDrop()
                .concatMap(tick -> work.get().onErrorResume(error -> {
                    log.debug(failure + ": " + error);
                    return Mono.empty();
                }), 1)
                .subscribe();
    }

    public synchronized void stop() {
        if (running != null) {
            running.dispose();
            running = null;
        }
    }

    public synchronized boolean isRunning() {
        return running != null;
    }
}
