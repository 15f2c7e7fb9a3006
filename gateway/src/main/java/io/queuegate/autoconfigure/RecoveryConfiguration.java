package io.queuegate.autoconfigure;

import java.time.Clock;

import io.queuegate.admission.ActiveCache;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.events.QueueEventHub;
import io.queuegate.line.LineViews;
import io.queuegate.recovery.LineRecovery;
import io.queuegate.recovery.Reclaims;
import io.queuegate.recovery.SessionLedger;
import io.queuegate.recovery.SpentAdmissions;
import io.queuegate.store.Channels;
import io.queuegate.store.DrawSeeds;
import io.queuegate.store.DueIndex;
import io.queuegate.store.ProductRecovery;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.QueueScripts;
import io.queuegate.store.RedisEpoch;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The line's recovery after Redis forgets: the sessions each instance remembers, the recovery of
 * a product from what it remembers, and which tokens prove what Redis lost. On by default, with
 * nothing to set.
 */
@Configuration(proxyBeanMethods = false)
class RecoveryConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SessionLedger queuegateSessionLedger(Channels channels, Clock queuegateClock) {
        // A QueueEvents bean: registered with the hub like every other listener bean.
        return new SessionLedger(channels, queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean(ProductRecovery.class)
    LineRecovery queuegateLineRecovery(QueueScripts scripts, RedisEpoch epoch, LineViews views, SessionLedger ledger,
            DueIndex due, QueueEventHub events, DrawSeeds seeds, Clock queuegateClock, QueueGateProperties properties,
            ObjectProvider<ActiveCache> activeCache) {
        LineRecovery recovery = new LineRecovery(scripts, epoch, views, ledger, due, events, seeds, queuegateClock,
                properties.token().ttl());
        epoch.onChange(current -> {
            // Nothing remembered of the data before holds: the next answers come from Redis.
            views.epochChanged();
            activeCache.ifAvailable(ActiveCache::forgetAll);
            recovery.epochChanged();
        });
        return recovery;
    }

    @Bean
    @ConditionalOnMissingBean
    SpentAdmissions queuegateSpentAdmissions(QueueScripts scripts, SessionLedger ledger, ProductRegistry registry,
            RedisEpoch epoch, QueueGateProperties properties) {
        SpentAdmissions spent = new SpentAdmissions(scripts, ledger, registry, properties.products().keySet());
        // Whatever Redis still holds after a failover is learned too.
        epoch.onChange(current -> spent.learn().subscribe());
        return spent;
    }

    @Bean
    @ConditionalOnMissingBean
    Reclaims queuegateReclaims(RedisEpoch epoch, SessionLedger ledger, Clock queuegateClock) {
        return new Reclaims(epoch, ledger, queuegateClock);
    }
}
