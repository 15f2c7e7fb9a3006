package io.queuegate.autoconfigure;

import java.time.Clock;

import io.queuegate.config.QueueGateProperties;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.identity.ForwardedHeadersCheck;
import io.queuegate.identity.IdentityAtStartup;
import io.queuegate.identity.IdentityResolver;
import io.queuegate.identity.IdentitySource;
import io.queuegate.identity.IgnoredIdentityHeaders;
import io.queuegate.identity.PrincipalIdentity;
import io.queuegate.identity.TrustedHeaderIdentity;
import io.queuegate.identity.TrustedProxies;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/** Who the caller is, and where their requests come from. */
@Configuration(proxyBeanMethods = false)
class IdentityConfiguration {

    private static final Log log = LogFactory.getLog(IdentityConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    TrustedProxies queuegateTrustedProxies(QueueGateProperties properties) {
        properties.deprecatedPropertiesInUse().forEach(property -> log.warn("Deprecated property in use: " + property));
        return new TrustedProxies(properties.allTrustedProxies());
    }

    @Bean
    @ConditionalOnMissingBean
    ClientAddresses clientAddresses(TrustedProxies proxies, Clock queuegateClock) {
        return new ClientAddresses(proxies, queuegateClock);
    }

    /**
     * Who the caller is, from {@code queuegate.identity.source}; an application's own
     * {@link IdentityResolver} bean replaces it.
     */
    @Bean
    @ConditionalOnMissingBean
    IdentityResolver queuegateIdentityResolver(QueueGateProperties properties, TrustedProxies proxies,
            Clock queuegateClock) {
        IgnoredIdentityHeaders ignored = new IgnoredIdentityHeaders(properties.identityHeader(), queuegateClock);
        if (properties.identity().source() == IdentitySource.HEADER) {
            if (proxies.isEmpty()) {
                log.warn("queuegate.identity.source is header, but queuegate.trusted-proxies is empty: the header is "
                        + "believed from nobody, and every caller is anonymous");
            }
            return new TrustedHeaderIdentity(properties.identityHeader(), proxies, ignored);
        }
        return new PrincipalIdentity(ignored);
    }

    /** One line at startup naming the identity source in force, whichever resolver that is. */
    @Bean
    IdentityAtStartup queuegateIdentityAtStartup(IdentityResolver resolver, QueueGateProperties properties,
            ApplicationContext context) {
        return new IdentityAtStartup(resolver, properties.identityHeader(), properties.allTrustedProxies(),
                ClassUtils.isPresent(IdentityAtStartup.SPRING_SECURITY_WEBFLUX, context.getClassLoader()));
    }

    @Bean
    @ConditionalOnMissingBean
    ForwardedHeadersCheck queuegateForwardedHeadersCheck(Environment environment, QueueGateProperties properties) {
        return new ForwardedHeadersCheck(environment, properties.identity().source() == IdentitySource.HEADER);
    }
}
