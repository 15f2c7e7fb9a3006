package io.queuegate.bench.bare;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

import reactor.core.publisher.Mono;

/**
 * Spring Cloud Gateway as a shop runs it without a waiting room: the gateway and reactive Redis
 * starters only, a plain route to the benchmark's backend and the same route behind Spring Cloud
 * Gateway's own {@code RequestRateLimiter} (Redis). The throughput benchmark measures QueueGate's
 * paths against this one.
 */
@SpringBootApplication
public class BareGatewayApplication {

    public static void main(String[] args) {
        SpringApplication.run(BareGatewayApplication.class, args);
    }

    /** One key for every request: the limiter's Redis work without any key's spread. */
    @Bean
    KeyResolver benchKeyResolver() {
        return exchange -> Mono.just("bench");
    }
}
