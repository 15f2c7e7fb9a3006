package io.queuegate.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.queuegate.support.FreePorts;

/**
 * One gateway under measurement in a JVM of its own, so that every gateway the throughput bench
 * compares runs alike: the same JVM flags, nothing else in its heap, and its own JIT. Profiled
 * with JFR through {@code jcmd}.
 */
final class GatewayProcess implements AutoCloseable {

    /** The same for every gateway measured. */
    private static final List<String> JVM_FLAGS = List.of("-Xms512m", "-Xmx512m", "-XX:+UseG1GC");

    private final String name;
    private final Process process;
    private final int port;

    private GatewayProcess(String name, Process process, int port) {
        this.name = name;
        this.process = process;
        this.port = port;
    }

    /**
     * Starts {@code mainClass} from {@code classpath} on a free port with {@code properties} as
     * command-line arguments, and waits until {@code readyPath} answers 200.
     */
    static GatewayProcess start(String name, String classpath, String mainClass, Map<String, Object> properties,
            String readyPath, Path logDir) throws Exception {
        int port = FreePorts.one();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(JVM_FLAGS);
        command.addAll(List.of("-cp", classpath, mainClass, "--server.port=" + port));
        properties.forEach((key, value) -> command.add("--" + key + "=" + value));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(logDir.resolve(name + ".log").toFile()).start();
        // A bench stopped with a signal must not leave its gateways running.
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        GatewayProcess gateway = new GatewayProcess(name, process, port);
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(URI.create(gateway.url(readyPath))).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (answer.statusCode() == 200) {
                    return gateway;
                }
            }
            catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        process.destroyForcibly();
        throw new IllegalStateException("gateway " + name + " did not start: see " + logDir.resolve(name + ".log"));
    }

    /**
     * The CPU time the gateway's JVM has used so far (user + system, from {@code /proc}), in
     * seconds: what a request costs the gateway, less sensitive to a busy machine than throughput.
     */
    double cpuSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
            // Fields after the command name (which may hold spaces) start after the last ')'.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
        }
        catch (IOException | RuntimeException unreadable) {
            return Double.NaN;
        }
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    String name() {
        return name;
    }

    /** Starts a JFR recording with the JDK's {@code profile} settings. */
    void startProfile() {
        jcmd("JFR.start", "name=bench", "settings=profile");
    }

    /** Stops the recording and writes it to {@code file}. */
    void stopProfile(Path file) {
        jcmd("JFR.stop", "name=bench", "filename=" + file.toAbsolutePath());
    }

    private void jcmd(String... args) {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        List<String> command = new ArrayList<>(List.of(jcmd, Long.toString(process.pid())));
        command.addAll(List.of(args));
        String out = Machine.run(command.toArray(String[]::new));
        if (out.contains("Could not") || out.contains("Exception")) {
            throw new IllegalStateException("jcmd " + String.join(" ", args) + " failed: " + out);
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}
