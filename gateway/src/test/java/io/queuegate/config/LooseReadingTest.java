package io.queuegate.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A path and a product id read as loosely as a shop could read them. */
class LooseReadingTest {

    @Test
    void dropsOneFormatSuffixOfTheLastSegmentAndATrailingSlash() {
        assertThat(LooseReading.of("/api/products/10/orders.json")).isEqualTo("/api/products/10/orders");
        assertThat(LooseReading.of("/api/products/10.XML")).isEqualTo("/api/products/10");
        assertThat(LooseReading.of("/api/products/10/orders/")).isEqualTo("/api/products/10/orders");
        assertThat(LooseReading.of("/archive.tar.gz")).as("one suffix").isEqualTo("/archive.tar");
        assertThat(LooseReading.of("/api/v1.2/items")).as("not the last segment").isEqualTo("/api/v1.2/items");
        assertThat(LooseReading.of("/files/v1.2")).as("a digit is no format").isEqualTo("/files/v1.2");
        assertThat(LooseReading.of("/.json")).as("nothing before it").isEqualTo("/.json");
        assertThat(LooseReading.of("/")).isEqualTo("/");
    }

    @Test
    void withAnyFormatTheLastSegmentEndsAtItsFirstDot() {
        assertThat(LooseReading.withAnyFormat("/api/products/10/orders.1")).isEqualTo("/api/products/10/orders");
        assertThat(LooseReading.withAnyFormat("/api/products/10/orders.json.xml")).isEqualTo("/api/products/10/orders");
        assertThat(LooseReading.withAnyFormat("/api/products/10/orders.")).isEqualTo("/api/products/10/orders");
        assertThat(LooseReading.withAnyFormat("/api/products/10/orders.js%6Fn/")).isEqualTo("/api/products/10/orders");
        assertThat(LooseReading.withAnyFormat("/api/v1.2/orders")).as("not the last segment").isEqualTo("/api/v1.2/orders");
        assertThat(LooseReading.withAnyFormat("/api/.hidden")).as("nothing before the dot").isEqualTo("/api/.hidden");
    }

    @Test
    void aProductIdLosesItsSuffixAndFoldsAsciiLetters() {
        assertThat(LooseReading.withoutSuffix("10.json")).isEqualTo("10");
        assertThat(LooseReading.withoutSuffix("shirt-2")).isEqualTo("shirt-2");
        assertThat(LooseReading.folded("RD1")).isEqualTo("rd1");
        assertThat(LooseReading.folded("rd1")).isSameAs(LooseReading.folded("rd1"));
    }
}
