package io.queuegate.chart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.embedded.RedisServer;

import static io.queuegate.chart.Manifests.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * What can be checked of the container image without a Docker engine: the runnable jar splits into
 * the layers the Dockerfile copies, and the merged layers start the gateway with the Dockerfile's
 * launcher and JVM flags and the configuration and secret the chart renders, against a real Redis.
 */
class GatewayImageTest {

    private static final List<String> LAYERS = List.of("dependencies", "spring-boot-loader", "snapshot-dependencies",
            "application");
    private static final String LAUNCHER = "org.springframework.boot.loader.launch.JarLauncher";
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @TempDir
    static Path work;

    private static Path extracted;
    private static RedisServer redis;
    private static Process gateway;
    private static Path gatewayLog;
    private static int port;
    private static int managementPort;
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    static void extractAndStartTheGateway() throws IOException {
        Path jar = runnableJar();
        extracted = work.resolve("extracted");
        run(work, List.of(java(), "-Djarmode=tools", "-jar", jar.toString(), "extract", "--layers", "--launcher",
                "--destination", extracted.toString()));

        // The same merge as the Dockerfile's COPY of each layer into /app.
        Path app = work.resolve("app");
        for (String layer : LAYERS) {
            copyTree(extracted.resolve(layer), app);
        }

        Helm helm = Helm.find();
        Path chart = helm.chart("queuegate");
        Manifests manifests = helm.template("-f", chart.resolve("ci/routes-values.yaml").toString(),
                "-f", Repository.root().resolve("chart-tests/src/test/resources/values/smoke-values.yaml").toString());
        Path config = work.resolve("application.yaml");
        Files.writeString(config, (String) at(manifests.get("ConfigMap", "qg-queuegate"), "data.application\\.yaml"));
        String tokenSecret = new String(Base64.getDecoder().decode(
                (String) at(manifests.get("Secret", "qg-queuegate"), "data.token-secret")), StandardCharsets.UTF_8);

        int[] ports = freePorts(3);
        int redisPort = ports[0];
        redis = RedisServer.newRedisServer().bind("127.0.0.1").port(redisPort)
                .setting("save \"\"").setting("appendonly no").build();
        redis.start();

        port = ports[1];
        managementPort = ports[2];
        // kept in target/ rather than the temp dir, so a failed run can be read afterwards
        gatewayLog = Repository.root().resolve("chart-tests/target/gateway-image-test.log");
        List<String> command = new ArrayList<>(List.of(java(),
                "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError",
                // start-up speed only; the image runs the JVM's default tiered compilation
                "-XX:TieredStopAtLevel=1",
                "-cp", ".", LAUNCHER,
                // a local Redis stands in for the cluster's; everything else is the chart's
                "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
                "--server.port=" + port, "--management.server.port=" + managementPort));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(app.toFile())
                .redirectErrorStream(true)
                .redirectOutput(gatewayLog.toFile());
        builder.environment().put("SPRING_CONFIG_ADDITIONAL_LOCATION", "file:" + config);
        builder.environment().put("QUEUEGATE_TOKEN_SECRET", tokenSecret);
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        gateway = builder.start();
        gateway.getOutputStream().close();

        await("the gateway started from the merged layers answers /actuator/health")
                .atMost(STARTUP)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptionsInstanceOf(IOException.class)
                .failFast("the gateway exited before it answered", () -> {
                    if (!gateway.isAlive()) {
                        fail("the gateway exited with " + gateway.exitValue() + "; its log:\n" + Files.readString(gatewayLog));
                    }
                })
                .untilAsserted(() -> assertThat(management("/actuator/health").statusCode()).isEqualTo(200));
    }

    @AfterAll
    static void stopTheGatewayThenRedis() throws InterruptedException, IOException {
        // Redis last, or the gateway's client logs reconnect warnings while it shuts down
        if (gateway != null) {
            gateway.destroy();
            if (!gateway.waitFor(20, TimeUnit.SECONDS)) {
                gateway.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (redis != null) {
            redis.stop();
        }
    }

    @Test
    void runnableJarSplitsIntoTheFourLayersTheDockerfileCopies() throws IOException {
        assertThat(extracted.resolve("dependencies/BOOT-INF/lib")).isDirectory();
        assertThat(extracted.resolve("snapshot-dependencies")).isDirectory();
        assertThat(extracted.resolve("spring-boot-loader/org/springframework/boot/loader/launch/JarLauncher.class"))
                .isRegularFile();
        assertThat(extracted.resolve("application/BOOT-INF/classes/io/queuegate/app/QueueGateApplication.class"))
                .isRegularFile();
        // The library is a module of the same build: Spring Boot layers it with the application, the
        // layer that changes with every release, not with the third-party dependencies.
        Path library = extracted.resolve("application/BOOT-INF/lib/queuegate-gateway-0.1.0-SNAPSHOT.jar");
        assertThat(library).isRegularFile();
        try (java.util.zip.ZipFile jar = new java.util.zip.ZipFile(library.toFile())) {
            assertThat(jar.getEntry("META-INF/queuegate/lua/join.lua")).as("the scripts ship in the library").isNotNull();
            assertThat(jar.getEntry("application.yml")).as("the library ships no application configuration").isNull();
        }
        assertThat(extracted.resolve("application/BOOT-INF/classes/application.yml")).isRegularFile();
    }

    @Test
    void dockerfilesCopyEveryLayerInOrderAndRunTheLauncherAsAnUnprivilegedUser() throws IOException {
        for (String dockerfile : List.of("gateway-app/Dockerfile", "demo-backend/Dockerfile")) {
            String text = Files.readString(Repository.root().resolve(dockerfile));
            List<Integer> copies = LAYERS.stream().map(layer -> text.indexOf("extracted/" + layer + "/ ./")).toList();

            assertThat(copies).as(dockerfile).doesNotContain(-1).isSorted();
            assertThat(text).as(dockerfile)
                    .contains("extract --layers --launcher")
                    .contains("FROM ${JRE_IMAGE}").contains("ARG JRE_IMAGE=eclipse-temurin:17-jre")
                    .contains("USER 10001:10001")
                    .contains("\"-XX:MaxRAMPercentage=75\", \"-XX:+ExitOnOutOfMemoryError\", \"" + LAUNCHER + "\"");
        }
    }

    @Test
    void probeEndpointsTheChartUsesAnswerOnTheManagementPortOnly() throws Exception {
        assertThat(management("/actuator/health/liveness").statusCode()).isEqualTo(200);
        assertThat(management("/actuator/health/readiness").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/health/readiness").statusCode()).as("nothing of the actuator on the shopper port")
                .isEqualTo(404);
    }

    @Test
    void gatewayBindsTheRoutesTheChartRendered() throws Exception {
        HttpResponse<String> routes = management("/actuator/gateway/routes");

        assertThat(routes.statusCode()).isEqualTo(200);
        assertThat(routes.body()).contains("\"smoke-products\"").contains("\"max-active\":10")
                .doesNotContain("demo-products");
    }

    @Test
    void productOverrideFromTheChartLimitsItsProductToTwoShoppers() throws Exception {
        // Product 42 is overridden to max-active 2 (the route says 10): the first two are let
        // through (and fail at the closed backend port), the third waits first in line.
        for (String user : List.of("alice", "bob")) {
            assertThat(get("/api/products/42", user).statusCode()).as(user).isNotEqualTo(429);
        }
        HttpResponse<String> carol = get("/api/products/42", "carol");

        assertThat(carol.statusCode()).as("%s; gateway log: %s", carol.body(), gatewayLog).isEqualTo(429);
        assertThat(carol.headers().firstValue("Queue-Rank")).hasValue("1");
    }

    private static HttpResponse<String> management(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                .timeout(Duration.ofSeconds(10)).header("Accept", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String path, String... user) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .header("Accept", "application/json");
        if (user.length > 0) {
            request.header("X-Customer-Id", user[0]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Path runnableJar() throws IOException {
        Path target = Repository.root().resolve("gateway-app/target");
        List<Path> jars;
        try (Stream<Path> files = Files.exists(target) ? Files.list(target) : Stream.empty()) {
            jars = files.filter(file -> file.getFileName().toString().matches("queuegate-gateway-app-.*-exec\\.jar")).toList();
        }
        if (jars.size() != 1) {
            fail("expected one gateway-app/target/queuegate-gateway-app-*-exec.jar, found " + jars
                    + ": build the gateway first, e.g. ./mvnw -B verify (the reactor builds it before these tests)");
        }
        return jars.get(0);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void run(Path dir, List<String> command) throws IOException {
        Path log = Files.createTempFile(work, "run-", ".log");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                fail(String.join(" ", command) + " failed:\n" + Files.readString(log));
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                }
                else {
                    Files.copy(source, target);
                }
            }
        }
    }

    /**
     * {@code count} ports free now and different from each other: every socket is held open until
     * all are chosen, since a port closed at once may be handed out again by the next ask (the
     * shopper and management ports once came out equal, and the gateway refused to start with its
     * actuator on the shopper port).
     */
    private static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                }
                catch (IOException ignored) {
                    // closing a listening socket that accepted nothing
                }
            }
        }
    }
}
