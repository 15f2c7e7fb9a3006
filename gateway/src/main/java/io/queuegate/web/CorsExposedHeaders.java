package io.queuegate.web;

import java.util.List;

import io.queuegate.admission.PresentedToken;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.cloud.gateway.config.GlobalCorsProperties;
import org.springframework.http.HttpHeaders;
import org.springframework.web.cors.CorsConfiguration;

/**
 * A single-page app on another origin reads the waiting answer's {@code Queue-Token},
 * {@code Queue-Rank}, {@code Retry-After} and {@code Queue-Come-Back-By} only if CORS exposes them: wherever the gateway's
 * global CORS is configured ({@code spring.cloud.gateway.server.webflux.globalcors}), they are
 * added to the exposed headers. Nothing is configured where the application configured no CORS.
 */
public class CorsExposedHeaders implements BeanPostProcessor {

    /** The headers of a waiting answer a script on another origin needs. */
    public static final List<String> HEADERS = List.of(PresentedToken.HEADER, QueueResponses.RANK_HEADER,
            HttpHeaders.RETRY_AFTER, QueueResponses.COME_BACK_BY_HEADER);

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof GlobalCorsProperties cors) {
            cors.getCorsConfigurations().values().forEach(CorsExposedHeaders::expose);
        }
        return bean;
    }

    static void expose(CorsConfiguration configuration) {
        List<String> exposed = configuration.getExposedHeaders();
        if (exposed != null && exposed.contains(CorsConfiguration.ALL)) {
            return;
        }
        for (String header : HEADERS) {
            if (exposed == null || exposed.stream().noneMatch(header::equalsIgnoreCase)) {
                configuration.addExposedHeader(header);
            }
        }
    }
}
