package io.queuegate.support;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

/** The shop behind the gateway in end-to-end tests: WireMock, answering like the demo shop. */
public final class Backend {

    private Backend() {
    }

    /** Products answer 200; orders answer 201, except on product {@code soldout} (409). */
    public static WireMockServer start() {
        WireMockServer server = new WireMockServer(WireMockConfiguration.options().dynamicPort()
                .containerThreads(16).jettyAcceptors(2));
        server.start();
        server.stubFor(get(urlPathMatching("/api/products/[^/]+"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"product\":\"ok\"}")));
        server.stubFor(post(urlPathMatching("/api/products/[^/]+/orders"))
                .willReturn(aResponse().withStatus(201).withHeader("Content-Type", "application/json")
                        .withBody("{\"order\":\"placed\"}")));
        server.stubFor(post(urlPathMatching("/api/products/soldout/orders"))
                .willReturn(aResponse().withStatus(409).withBody("{\"error\":\"sold_out\"}")));
        server.stubFor(get(urlPathMatching("/open/.*")).willReturn(aResponse().withStatus(200).withBody("open")));
        return server;
    }
}
