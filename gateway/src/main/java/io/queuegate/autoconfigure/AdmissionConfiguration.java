package io.queuegate.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;

import io.queuegate.admission.ActiveCache;
import io.queuegate.admission.AdmissionService;
import io.queuegate.admission.CallerResolver;
import io.queuegate.admission.JoinLimiter;
import io.queuegate.admission.Sessions;
import io.queuegate.challenge.JoinGate;
import io.queuegate.challenge.JoinRates;
import io.queuegate.challenge.ProofOfWork;
import io.queuegate.challenge.WaitTickets;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.events.QueueEventHub;
import io.queuegate.invites.InvitationKeys;
import io.queuegate.invites.InvitationVerifier;
import io.queuegate.line.LocalAnswers;
import io.queuegate.recovery.Reclaims;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.store.Channels;
import io.queuegate.store.ProductQueues;
import io.queuegate.token.SigningKeys;
import io.queuegate.token.WaitTokenCodec;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/** The admission decision: tokens, callers, the join's checks, invitations, and the routes' rules. */
@Configuration(proxyBeanMethods = false)
class AdmissionConfiguration {

    @Bean
    @ConditionalOnMissingBean
    WaitTokenCodec waitTokenCodec(QueueGateProperties properties, Clock queuegateClock) {
        QueueGateProperties.Token token = properties.token();
        return new WaitTokenCodec(new SigningKeys(token.secret(), token.previousSecrets()), token.ttl(),
                queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    CallerResolver callerResolver(WaitTokenCodec tokens) {
        return new CallerResolver(tokens);
    }

    @Bean
    @ConditionalOnMissingBean
    ActiveCache activeCache(Channels channels, Clock queuegateClock, QueueGateProperties properties) {
        return new ActiveCache(channels, queuegateClock, properties.activeCacheTtl(), properties.redis().timeout());
    }

    @Bean
    @ConditionalOnMissingBean
    AdmissionService admissionService(CallerResolver callers, ProductQueues queues, WaitTokenCodec tokens,
            ActiveCache activeCache, Clock queuegateClock, QueueEventHub events, QueueGateProperties properties,
            LocalAnswers localAnswers, JoinGate joinGate, Reclaims reclaims) {
        QueueGateProperties.Joins joins = properties.joins();
        return new AdmissionService(callers, queues, tokens,
                new JoinLimiter(joins.maxPerCaller(), joins.window(), queuegateClock),
                new JoinLimiter(joins.maxPerAddress(), joins.window(), queuegateClock), activeCache, events,
                localAnswers, joinGate, reclaims);
    }

    @Bean
    @ConditionalOnMissingBean
    Sessions queuegateSessions(ProductQueues queues, ActiveCache activeCache, QueueEventHub events,
            LocalAnswers localAnswers, WaitTokenCodec tokens, Reclaims reclaims) {
        return new Sessions(queues, activeCache, events, localAnswers, tokens, reclaims);
    }

    /**
     * Challenges are signed with {@code queuegate.challenge.secret}, or else with a key derived
     * from the token secret; while the token secret rotates, challenges signed under a previous
     * one are still accepted (they live minutes).
     */
    @Bean
    @ConditionalOnMissingBean
    JoinGate queuegateJoinGate(QueueGateProperties properties, Clock queuegateClock) {
        QueueGateProperties.Challenge challenge = properties.challenge();
        QueueGateProperties.Token token = properties.token();
        String key = challenge.secret() != null ? challenge.secret() : ProofOfWork.derivedKey(token.secret());
        List<String> previousKeys = challenge.secret() != null ? List.of()
                : token.previousSecrets().stream().map(ProofOfWork::derivedKey).toList();
        ProofOfWork proofOfWork = new ProofOfWork(key, previousKeys, challenge.ttl(), queuegateClock);
        WaitTickets tickets = new WaitTickets(WaitTickets.derivedKey(key),
                previousKeys.stream().map(WaitTickets::derivedKey).toList(), challenge.ttl(), queuegateClock);
        return new JoinGate(proofOfWork, new JoinRates(queuegateClock), tickets, challenge.noScriptWait());
    }

    @Bean
    @ConditionalOnMissingBean
    RouteQueuePolicies routeQueuePolicies(QueueGateProperties properties) {
        return new RouteQueuePolicies(properties.routeDefaults(), properties.products());
    }

    /** Read once at startup: a JWK set is never fetched while shoppers wait on it. */
    @Bean
    @ConditionalOnMissingBean
    InvitationVerifier invitationVerifier(QueueGateProperties properties, ResourceLoader resources,
            Clock queuegateClock) {
        QueueGateProperties.Invites invites = properties.invites();
        String jwkSet = null;
        if (invites.jwkSet() != null && !invites.jwkSet().isBlank()) {
            Resource location = resources.getResource(invites.jwkSet().strip());
            try (InputStream in = location.getInputStream()) {
                jwkSet = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            catch (IOException ex) {
                throw new IllegalStateException("queuegate.invites.jwk-set cannot be read from " + invites.jwkSet()
                        + ": " + ex.getMessage(), ex);
            }
        }
        return new InvitationVerifier(InvitationKeys.of(invites.secret(), invites.publicKey(), jwkSet), queuegateClock);
    }
}
