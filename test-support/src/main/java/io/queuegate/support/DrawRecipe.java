package io.queuegate.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The buyer's recipe of docs/drops.md, run exactly as printed there: the first {@code python}
 * block of the page, with {@code python3}, on what the gateway showed (the commitment before the
 * opening) and revealed (the seed, the first ticket, how many were drawn).
 */
public final class DrawRecipe {

    private DrawRecipe() {
    }

    /** Whether {@code python3} runs here; without it the recipe cannot be tried. */
    public static boolean available() {
        try {
            Process process = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        }
        catch (IOException ex) {
            return false;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The tickets in the order the recipe draws them (place 1 first).
     *
     * @throws IllegalStateException when the recipe refuses (a seed that is not the one committed to)
     */
    public static List<Long> ticketsInOrder(String seed, long firstTicket, long preQueued, String commitment) {
        String output = run(seed, Long.toString(firstTicket), Long.toString(preQueued), commitment);
        List<Long> tickets = new ArrayList<>();
        for (String line : output.strip().split("\n")) {
            String[] placeAndTicket = line.strip().split("\\s+");
            if (Integer.parseInt(placeAndTicket[0]) != tickets.size() + 1) {
                throw new IllegalStateException("the recipe's places are not 1, 2, 3...: " + output);
            }
            tickets.add(Long.parseLong(placeAndTicket[1]));
        }
        return tickets;
    }

    private static String run(String... arguments) {
        try {
            Path script = Files.createTempFile("draw", ".py");
            try {
                Files.writeString(script, snippet());
                List<String> command = new ArrayList<>(List.of("python3", script.toString()));
                command.addAll(List.of(arguments));
                Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    throw new IllegalStateException("the recipe refused: " + output);
                }
                return output;
            }
            finally {
                Files.deleteIfExists(script);
            }
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** The first {@code python} block of docs/drops.md. */
    static String snippet() throws IOException {
        String page = Files.readString(repositoryRoot().resolve("docs/drops.md"));
        int start = page.indexOf("```python\n");
        if (start < 0) {
            throw new IllegalStateException("docs/drops.md has no python block");
        }
        start += "```python\n".length();
        return page.substring(start, page.indexOf("\n```", start) + 1);
    }

    /** The repository's root: the first directory upwards that holds both {@code lua/} and {@code pom.xml}. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("lua")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no directory with lua/ and pom.xml above " + Path.of("").toAbsolutePath());
    }
}
