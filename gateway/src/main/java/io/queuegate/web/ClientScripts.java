package io.queuegate.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

import reactor.core.publisher.Mono;

/**
 * The JavaScript client for single-page apps, at {@code /queue/client.js} with the modules it
 * loads: the same files as the npm package {@code @queuegate/client}, read once from the jar.
 * They are answered with an {@code ETag} and {@code Cache-Control: no-cache}: a browser keeps its
 * copy and asks each time whether it still holds (a {@code 304} without a body), so a gateway
 * upgraded with a new client is never paired with an old copy of one of its modules. Any origin may
 * load them ({@code Access-Control-Allow-Origin: *}: they are public and sent without
 * credentials), since a module script from another origin is fetched with CORS.
 */
public class ClientScripts {

    /** Where the client's files live in the jar, beside the package.json that packs them for npm. */
    public static final String LOCATION = "queuegate/client/";

    /** The files served, by the name they have under {@code /queue/}. */
    public static final List<String> FILES = List.of("client.js", "pow.js", "pow-worker.js");

    private static final MediaType JAVASCRIPT = MediaType.parseMediaType("text/javascript;charset=UTF-8");

    private final Map<String, Script> scripts = new LinkedHashMap<>();

    public ClientScripts() {
        for (String name : FILES) {
            scripts.put(name, Script.read(LOCATION + name));
        }
    }

    public RouterFunction<ServerResponse> routes() {
        RouterFunctions.Builder routes = RouterFunctions.route();
        scripts.forEach((name, script) -> routes.GET(QueuePaths.PREFIX + name, request -> serve(request, script)));
        return routes.build();
    }

    private static Mono<ServerResponse> serve(ServerRequest request, Script script) {
        boolean unchanged = matches(request.headers().header(HttpHeaders.IF_NONE_MATCH), script.etag());
        ServerResponse.BodyBuilder answer = ServerResponse.status(unchanged ? HttpStatus.NOT_MODIFIED : HttpStatus.OK)
                .eTag(script.etag())
                .header(HttpHeaders.CACHE_CONTROL, "no-cache")
                .header("X-Content-Type-Options", "nosniff")
                .header(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        if (unchanged) {
            return answer.build();
        }
        return answer.contentType(JAVASCRIPT).contentLength(script.bytes().length).bodyValue(script.bytes());
    }

    /** {@code If-None-Match}: a list of tags, weak or strong (a weak comparison, as RFC 9110 asks), or {@code *}. */
    static boolean matches(List<String> ifNoneMatch, String etag) {
        for (String header : ifNoneMatch) {
            for (String tag : header.split(",")) {
                String candidate = tag.strip();
                if (candidate.startsWith("W/")) {
                    candidate = candidate.substring(2);
                }
                if (candidate.equals("*") || candidate.equals(etag)) {
                    return true;
                }
            }
        }
        return false;
    }

    private record Script(byte[] bytes, String etag) {

        static Script read(String path) {
            try (InputStream in = new ClassPathResource(path).getInputStream()) {
                byte[] bytes = in.readAllBytes();
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
                return new Script(bytes, "\"" + HexFormat.of().formatHex(digest, 0, 16) + "\"");
            }
            catch (IOException ex) {
                throw new UncheckedIOException("QueueGate's client script " + path + " cannot be read", ex);
            }
            catch (NoSuchAlgorithmException ex) {
                throw new IllegalStateException(ex);
            }
        }
    }
}
