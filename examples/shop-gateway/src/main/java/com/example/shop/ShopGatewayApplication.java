package com.example.shop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A shop's own gateway. It knows nothing of QueueGate's classes: the dependency's
 * auto-configuration installs the waiting room, and a {@code queue} block in route metadata
 * switches it on for a route.
 */
@SpringBootApplication
public class ShopGatewayApplication {

    public static void main(String[] args) {
        SpringApplication.run(ShopGatewayApplication.class, args);
    }
}
