package io.queuegate.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a benchmark's results say about where they were measured: the machine, the commit, the tools. */
final class Machine {

    private Machine() {
    }

    /** git's output, trimmed; "?" when git cannot say, so a result is still written. */
    static String git(String... args) {
        try {
            return gitOrFail(args).trim();
        }
        catch (RuntimeException ex) {
            return "?";
        }
    }

    /** git's output; its error as an exception, for a revision or file that does not exist. */
    static String gitOrFail(String... args) {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).start();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread errors = new Thread(() -> copy(process.getErrorStream(), err));
            errors.start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int code = process.waitFor();
            errors.join();
            if (code != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: "
                        + err.toString(StandardCharsets.UTF_8).trim());
            }
            return out;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        try {
            in.transferTo(out);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Which files of the code measured had uncommitted changes: the run measured the working tree. */
    static String uncommitted() {
        String status = git("status", "--porcelain", "--untracked-files=no", "--", "gateway", "lua", "bench/src");
        // "XY path", where X or Y may be a space (and the first line's was trimmed away)
        List<String> files = status.lines().map(String::strip).filter(line -> !line.isEmpty())
                .map(line -> line.substring(line.indexOf(' ') + 1).strip()).toList();
        if (files.isEmpty()) {
            return "";
        }
        return " plus uncommitted changes (the working tree was measured): " + String.join(", ", files);
    }

    static String wrkVersion() {
        return find(run("wrk", "-v"), "(wrk \\S+)", "wrk");
    }

    static String run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor();
            return out;
        }
        catch (Exception ex) {
            return "";
        }
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        }
        catch (IOException ex) {
            return "?";
        }
    }

    static String cpu() {
        try {
            return find(Files.readString(Path.of("/proc/cpuinfo")), "model name\\s*:\\s*(.+)", "unknown CPU").trim();
        }
        catch (IOException ex) {
            return "unknown CPU";
        }
    }

    static String memory() {
        try {
            long kb = Long.parseLong(find(Files.readString(Path.of("/proc/meminfo")), "MemTotal:\\s+(\\d+)", "0"));
            return Math.round(kb / 1024.0 / 1024.0) + " GiB";
        }
        catch (IOException ex) {
            return "? GiB";
        }
    }

    /** One line for a results file: CPU, cores, memory, OS, Java. */
    static String describe() {
        return cpu() + ", " + Runtime.getRuntime().availableProcessors() + " cores, " + memory() + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
                + System.getProperty("java.version");
    }

    static String find(String text, String regex, String otherwise) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? m.group(1) : otherwise;
    }
}
