package io.queuegate.store;

import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.DisconnectedEvent;
import io.lettuce.core.resource.ClientResources;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;

/**
 * Listens to Lettuce's connection events: a lost connection makes the {@link RedisEpoch} suspect
 * (whatever answers next may be another server, or this one restarted), and a connection made
 * again has the epoch read at once, so a loss is noticed and recovered before the next shopper's
 * request needs it. Once Redis has answered that read, the outage is over for the
 * {@link RedisGuard}: its breaker closes. (Only then: the connection made again may be a
 * subscription's while the one that carries the commands is still down.)
 */
public final class RedisConnectionEvents implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(RedisConnectionEvents.class);

    private final ClientResources resources;
    private final RedisEpoch epoch;
    private final RedisGuard guard;
    private volatile Disposable events;

    public RedisConnectionEvents(ClientResources resources, RedisEpoch epoch, RedisGuard guard) {
        this.resources = resources;
        this.epoch = epoch;
        this.guard = guard;
    }

    @Override
    public void start() {
        events = resources.eventBus().get().subscribe(event -> {
            if (event instanceof DisconnectedEvent) {
                epoch.suspect();
            }
            else if (event instanceof ConnectionActivatedEvent) {
                epoch.suspect();
                epoch.current().subscribe(current -> guard.reconnected(),
                        error -> log.debug("Could not read Redis's epoch after a reconnection: " + error));
            }
        });
    }

    @Override
    public void stop() {
        Disposable current = events;
        if (current != null) {
            current.dispose();
        }
        events = null;
    }

    @Override
    public boolean isRunning() {
        return events != null;
    }
}
