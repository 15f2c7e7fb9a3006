package io.queuegate.autoconfigure;

import java.time.Clock;

import io.queuegate.config.QueueGateProperties;
import io.queuegate.events.QueueEventHub;
import io.queuegate.events.QueueEvents;
import io.queuegate.events.Trigger;
import io.queuegate.line.LineViews;
import io.queuegate.line.LocalAnswers;
import io.queuegate.line.SeenMarks;
import io.queuegate.live.AdmissionNotifier;
import io.queuegate.live.LiveStatus;
import io.queuegate.recovery.Reclaims;
import io.queuegate.recovery.SessionLedger;
import io.queuegate.store.Channels;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueScripts;
import io.queuegate.token.WaitTokenCodec;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** This instance's views of the lines: answers from memory, and the live status shoppers' pages follow. */
@Configuration(proxyBeanMethods = false)
class LineConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LineViews lineViews(QueueScripts scripts, Channels channels, Clock queuegateClock, QueueEventHub events) {
        LineViews views = new LineViews(scripts, channels, queuegateClock);
        // This instance's own admissions and operator changes count at once, before its answer leaves.
        events.register(new QueueEvents() {
            @Override
            public void promoted(String productId, Trigger trigger, long promoted) {
                views.admitted(productId, promoted);
            }

            @Override
            public void operatorAction(String productId, String action, String value, long promoted) {
                views.changed(productId);
            }
        });
        return views;
    }

    @Bean
    @ConditionalOnMissingBean
    SeenMarks seenMarks(QueueScripts scripts, Clock queuegateClock) {
        return new SeenMarks(scripts, queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    LocalAnswers localAnswers(LineViews views, SeenMarks seen, Clock queuegateClock) {
        return new LocalAnswers(views, seen, queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    AdmissionNotifier admissionNotifier(Channels channels, LineViews views, SessionLedger ledger) {
        return new AdmissionNotifier(channels, (productId, users) -> {
            views.announced(productId, users);
            ledger.announced(productId, users);
        });
    }

    @Bean
    @ConditionalOnMissingBean
    LiveStatus liveStatus(ProductQueues queues, AdmissionNotifier notifier, LocalAnswers localAnswers,
            WaitTokenCodec tokens, Reclaims reclaims, QueueGateProperties properties) {
        return new LiveStatus(queues, notifier, localAnswers, tokens, reclaims, properties.page().heartbeat());
    }
}
