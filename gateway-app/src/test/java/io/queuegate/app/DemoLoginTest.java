package io.queuegate.app;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The demo as the README shows it: its operator commands work as written (the demo profile sets
 * the login they pass with {@code -u}, and the same command without it is refused), its
 * waiting page names the product a shopper waits for, not its id, and both its ports listen on
 * loopback alone. What it refuses to start with is {@link DemoProfileGuardTest}'s.
 */
class DemoLoginTest {

    /** {@code curl -u user:password -X POST localhost:9090/actuator/queues/<id> -H '...' -d '<json>'} */
    private static final Pattern OPERATOR_COMMAND = Pattern.compile(
            "curl -u ([^:\\s]+):(\\S+) -X POST localhost:9090(/actuator/queues/\\d+) "
                    + "-H 'Content-Type: application/json' -d '([^']*)'");

    private static WireMockServer shop;
    private static RunnableGateway demo;

    @BeforeAll
    static void start() {
        shop = Backend.start();
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.profiles.active", "demo");
        properties.put("DEMO_BACKEND_URI", shop.baseUrl());
        RunnableGateway.onTestPorts(properties);
        properties.put("spring.main.banner-mode", "off");
        properties.put("logging.level.root", "WARN");
        demo = RunnableGateway.start(properties);
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
        shop.stop();
    }

    @Test
    void theReadmesOperatorCommandsActWithTheDemoLoginAndNotWithoutIt() throws IOException {
        List<Matcher> commands = new ArrayList<>();
        for (String line : Files.readAllLines(readme())) {
            Matcher command = OPERATOR_COMMAND.matcher(line);
            if (command.find()) {
                commands.add(command);
            }
        }
        assertThat(commands).as("operator commands with -u in README.md").isNotEmpty();
        for (Matcher command : commands) {
            String path = command.group(3);
            String body = command.group(4);
            assertThat(RawHttp.send(demo.managementPort(), "POST", path, body, "Content-Type", "application/json")
                    .status()).as("%s without -u", command.group()).isEqualTo(401);
            RawHttp.Answer acted = RawHttp.send(demo.managementPort(), "POST", path, body,
                    "Host", "localhost:" + demo.managementPort(), "Content-Type", "application/json",
                    "Authorization", RawHttp.basic(command.group(1), command.group(2)));
            assertThat(acted.status()).as("%s: %s", command.group(), acted).isEqualTo(200);
        }
    }

    @Test
    void theDemosWaitingPageNamesTheProductNotItsId() {
        // The demo route admits two at a time: the third waits, in a browser.
        for (String shopper : List.of("demo-alice", "demo-bob")) {
            assertThat(RunnableGateway.send(demo.port(), "GET", "/api/products/7", "X-User-Id", shopper).statusCode())
                    .isEqualTo(200);
        }
        HttpResponse<String> page = RunnableGateway.send(demo.port(), "GET", "/api/products/7",
                "X-User-Id", "demo-carol", "Accept", "text/html");
        assertThat(page.statusCode()).isEqualTo(429);
        assertThat(page.body()).contains("There is high demand for Concert ticket")
                .contains("<title>You are in line for Concert ticket</title>")
                .doesNotContain("demand for 7");
    }

    /**
     * Linux routes all of 127.0.0.0/8 to the loopback interface: a port bound to every interface
     * answers on 127.0.0.2 as on any address of the machine, one bound to 127.0.0.1 does not.
     */
    @Test
    void bothPortsListenOnLoopbackOnly() throws IOException {
        for (int port : new int[] { demo.port(), demo.managementPort() }) {
            try (Socket loopback = new Socket()) {
                loopback.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            }
            assertThatThrownBy(() -> {
                try (Socket other = new Socket()) {
                    other.connect(new InetSocketAddress("127.0.0.2", port), 5_000);
                }
            }).as("port %d on 127.0.0.2", port).isInstanceOf(ConnectException.class);
        }
    }

    private static Path readme() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("lua")) && Files.isRegularFile(dir.resolve("README.md"))) {
                return dir.resolve("README.md");
            }
        }
        throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
    }
}
