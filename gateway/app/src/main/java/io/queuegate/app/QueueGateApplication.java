package io.queuegate.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The runnable QueueGate gateway: Spring Cloud Gateway with QueueGate's auto-configuration. */
@SpringBootApplication
public class QueueGateApplication {

    public static void main(String[] args) {
        SpringApplication.run(QueueGateApplication.class, args);
    }
}
