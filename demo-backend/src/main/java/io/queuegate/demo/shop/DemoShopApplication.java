package io.queuegate.demo.shop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A tiny shop with limited stock: the backend that QueueGate protects in the demo, the tests and the benchmarks.
 */
@SpringBootApplication
@EnableConfigurationProperties(ShopProperties.class)
public class DemoShopApplication {

    public static void main(String[] args) {
        SpringApplication.run(DemoShopApplication.class, args);
    }
}
