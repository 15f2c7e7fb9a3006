package com.example.shop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration;

/**
 * A shop's own gateway that knows nothing of QueueGate's classes: the dependency's
 * auto-configuration installs the waiting room, a {@code queue} block in route metadata switches
 * it on, and Spring Security tells it who the shopper is.
 */
// Nobody signs in to the gateway itself, so Spring Boot's generated user (and the password it
// logs at every start) would only be a credential nobody uses.
@SpringBootApplication(exclude = ReactiveUserDetailsServiceAutoConfiguration.class)
public class ShopGatewayApplication {

    public static void main(String[] args) {
        SpringApplication.run(ShopGatewayApplication.class, args);
    }
}
