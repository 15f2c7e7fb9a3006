package io.queuegate.support;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A shop's gateway with nothing but Spring Cloud Gateway and QueueGate's auto-configuration: what
 * the library's tests run. The runnable gateway (gateway-app) has tests of its own for its
 * shipped configuration.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TestGateway {
}
