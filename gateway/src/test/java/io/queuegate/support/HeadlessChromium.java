package io.queuegate.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import org.springframework.util.FileSystemUtils;

/**
 * Debian's Chromium, headless, for the page tests: each browser with a profile of its own, removed
 * when it closes, and its screenshots under {@code gateway/target/screenshots/}. A test class calls
 * {@link #assumeInstalled()} first, so a machine without Chromium skips it, saying why;
 * {@code .ci/run} installs Chromium.
 */
public final class HeadlessChromium implements AutoCloseable {

    private static final File BINARY = new File("/usr/bin/chromium");
    private static final File DRIVER = new File("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    private final ChromeDriver driver;
    private final Path profile;

    private HeadlessChromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    public static void assumeInstalled() {
        Assumptions.assumeTrue(BINARY.canExecute() && DRIVER.canExecute(),
                "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver); "
                        + ".ci/run installs them");
    }

    /** A browser that asks for pages in {@code language}, with a window of this size. */
    public static HeadlessChromium start(String language, int width, int height) {
        Path profile;
        try {
            profile = Files.createTempDirectory("queuegate-chromium-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BINARY);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic", "--window-size=" + width + "," + height, "--lang=" + language,
                "--user-data-dir=" + profile);
        options.setExperimentalOption("prefs", Map.of("intl.accept_languages", language));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER)
                .usingAnyFreePort().build();
        return new HeadlessChromium(new ChromeDriver(service, options), profile);
    }

    public ChromeDriver driver() {
        return driver;
    }

    /** Keeps what the page shows now as {@code target/screenshots/<name>}. */
    public void screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Files.write(SCREENSHOTS.resolve(name), driver.getScreenshotAs(OutputType.BYTES));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        }
        finally {
            FileSystemUtils.deleteRecursively(profile.toFile());
        }
    }
}
