package io.queuegate.web;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JavaScript client on the shopper port: the files the npm package lists, byte for byte, as
 * JavaScript a module loader accepts, cached by ETag, and loadable from another origin.
 */
class ClientScriptsTest {

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        gateway = GatewayInstance.start(GatewayInstance.defaults(redis, backend.baseUrl(), Map.of("max-active", "1")));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        backend.stop();
        redis.close();
    }

    @Test
    void everyFileOfThePackageIsServedAsItIsInThePackage() throws IOException {
        JsonNode pkg = new JsonMapper().readTree(resource("package.json"));
        List<String> packed = new ArrayList<>();
        pkg.path("files").forEach(file -> packed.add(file.asString()));
        assertThat(packed).as("package.json's files are the files served")
                .containsExactlyElementsOf(ClientScripts.FILES);
        assertThat(pkg.path("type").asString()).isEqualTo("module");
        assertThat(pkg.path("exports").path(".").asString()).isEqualTo("./client.js");
        assertThat(pkg.path("dependencies").isMissingNode()).as("no dependencies").isTrue();

        for (String file : packed) {
            EntityExchangeResult<byte[]> served = gateway.client().get().uri("/queue/" + file).exchange()
                    .expectStatus().isOk()
                    .expectHeader().valueEquals("Content-Type", "text/javascript;charset=UTF-8")
                    .expectHeader().valueEquals("Cache-Control", "no-cache")
                    .expectHeader().valueEquals("X-Content-Type-Options", "nosniff")
                    .expectHeader().valueEquals("Access-Control-Allow-Origin", "*")
                    .expectBody().returnResult();
            assertThat(served.getResponseBody()).as(file).isEqualTo(resource(file));
            assertThat(served.getResponseHeaders().getETag()).as(file).matches("\"[0-9a-f]{32}\"");
        }
    }

    @Test
    void aBrowserThatHoldsTheCurrentCopyGetsNotModifiedAndAnOldCopyGetsTheNewOne() {
        String etag = gateway.client().get().uri("/queue/client.js").exchange()
                .expectStatus().isOk().returnResult(byte[].class).getResponseHeaders().getETag();

        gateway.client().get().uri("/queue/client.js").header("If-None-Match", etag).exchange()
                .expectStatus().isEqualTo(HttpStatus.NOT_MODIFIED)
                .expectHeader().valueEquals("ETag", etag)
                .expectHeader().valueEquals("Cache-Control", "no-cache")
                .expectBody().isEmpty();
        gateway.client().get().uri("/queue/client.js").header("If-None-Match", "W/\"older\", " + "W/" + etag)
                .exchange().expectStatus().isEqualTo(HttpStatus.NOT_MODIFIED);
        gateway.client().get().uri("/queue/client.js").header("If-None-Match", "\"0123456789abcdef0123456789abcdef\"")
                .exchange().expectStatus().isOk().expectBody().consumeWith(body ->
                        assertThat(body.getResponseBody()).isNotEmpty());
        assertThat(gateway.client().get().uri("/queue/pow.js").exchange().returnResult(byte[].class)
                .getResponseHeaders().getETag()).as("each file has its own tag").isNotEqualTo(etag);
    }

    @Test
    void theModulesLoadOnlyEachOtherSoThePackageIsWhole() throws IOException {
        Pattern relative = Pattern.compile("(?:from\\s+|new URL\\(\\s*)'\\./([^']+)'");
        for (String file : ClientScripts.FILES) {
            Matcher reference = relative.matcher(new String(resource(file), StandardCharsets.UTF_8));
            while (reference.find()) {
                assertThat(ClientScripts.FILES).as("%s loads %s", file, reference.group(1))
                        .contains(reference.group(1));
            }
        }
        assertThat(new String(resource("client.js"), StandardCharsets.UTF_8))
                .as("the worker is a file of its own, so a page's CSP need not allow blob: workers")
                .contains("new URL('./pow-worker.js', import.meta.url)")
                .doesNotContain("Blob(").doesNotContain("eval(").doesNotContain("new Function");
    }

    @Test
    void aFileTheClientDoesNotHaveIsNotFound() {
        gateway.client().get().uri("/queue/package.json").exchange().expectStatus().isNotFound();
        gateway.client().get().uri("/queue/other.js").exchange().expectStatus().isNotFound();
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = new ClassPathResource(ClientScripts.LOCATION + name).getInputStream()) {
            return in.readAllBytes();
        }
    }
}
