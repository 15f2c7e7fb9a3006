package io.queuegate.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.util.FileSystemUtils;

/**
 * Debian's Chromium, headless, for the page tests, as a JUnit extension a test class registers
 * in a static field:
 *
 * <pre>
 * &#64;RegisterExtension
 * static final HeadlessChromium chromium = HeadlessChromium.window(420, 860);
 * </pre>
 *
 * <p>A machine without Chromium skips the whole class, saying why, before its {@code @BeforeAll}
 * starts anything ({@code .ci/run} installs Chromium); nothing else skips it. A test
 * {@linkplain #open(String) opens} a browser (a profile of its own, in the language asked for,
 * with the class's window size), which closes after the test, or earlier with {@link #close()}.
 * Screenshots go under {@code gateway/target/screenshots/}.
 */
public final class HeadlessChromium implements ExecutionCondition, AfterEachCallback, AfterAllCallback {

    private static final File BINARY = new File("/usr/bin/chromium");
    private static final File DRIVER = new File("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    /** The widths {@link #screenshotsAtWidths} shows a page at: a phone's and a desktop's. */
    private static final List<Integer> WIDTHS = List.of(390, 1280);

    /** Every directive a page's Content-Security-Policy refused goes into {@code window.queuegateViolations}. */
    private static final String WATCH_POLICY_VIOLATIONS = """
            window.queuegateViolations = [];
            document.addEventListener('securitypolicyviolation', function (e) {
              window.queuegateViolations.push(e.violatedDirective + ' ' + e.blockedURI);
            });
            """;

    private final File binary;
    private final File chromedriver;
    private final int width;
    private final int height;
    private ChromeDriver driver;
    private Path profile;

    HeadlessChromium(File binary, File chromedriver, int width, int height) {
        this.binary = binary;
        this.chromedriver = chromedriver;
        this.width = width;
        this.height = height;
    }

    /** Browsers whose window is this size when they open. */
    public static HeadlessChromium window(int width, int height) {
        return new HeadlessChromium(BINARY, DRIVER, width, height);
    }

    /** Whether Chromium and its driver are installed where Debian puts them. */
    boolean installed() {
        return binary.canExecute() && chromedriver.canExecute();
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return installed() ? ConditionEvaluationResult.enabled("Chromium is installed")
                : ConditionEvaluationResult.disabled("needs Debian's chromium and chromium-driver "
                        + "(apt-get install chromium chromium-driver); .ci/run installs them");
    }

    /** A browser that asks for pages in English (US). */
    public ChromeDriver open() {
        return open("en-US");
    }

    /** A browser that asks for pages in {@code language}, closing the one open before, if any. */
    public ChromeDriver open(String language) {
        close();
        try {
            profile = Files.createTempDirectory("queuegate-chromium-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(binary);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic", "--window-size=" + width + "," + height, "--lang=" + language,
                "--user-data-dir=" + profile);
        options.setExperimentalOption("prefs", Map.of("intl.accept_languages", language));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver)
                .usingAnyFreePort().build();
        try {
            driver = new ChromeDriver(service, options);
        }
        catch (RuntimeException ex) {
            FileSystemUtils.deleteRecursively(profile.toFile());
            profile = null;
            throw ex;
        }
        return driver;
    }

    /** The open browser. */
    public ChromeDriver driver() {
        if (driver == null) {
            throw new IllegalStateException("no browser is open: open one first");
        }
        return driver;
    }

    /** Runs {@code script} in every document the open browser loads from now on, before the page's own scripts. */
    public void onEveryDocument(String script) {
        driver().executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", script));
    }

    /** Notes, in every document loaded from now on, what its Content-Security-Policy refuses: see {@link #policyViolations()}. */
    public void watchPolicyViolations() {
        onEveryDocument(WATCH_POLICY_VIOLATIONS);
    }

    /** What the page's policy refused since it loaded ({@link #watchPolicyViolations()} first): each a directive and the address. */
    public List<?> policyViolations() {
        Object violations = driver().executeScript("return window.queuegateViolations");
        if (!(violations instanceof List<?> list)) {
            throw new IllegalStateException("the page's policy violations are not watched: " + violations);
        }
        return list;
    }

    /** Keeps what the page shows now as {@code target/screenshots/<name>}. */
    public void screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Files.write(SCREENSHOTS.resolve(name), driver().getScreenshotAs(OutputType.BYTES));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The page as a phone (390 px wide) and a desktop (1280 px) show it, as {@code <name>-390.png}
     * and {@code <name>-1280.png}, at the window's height; then the window is as it opened.
     */
    public void screenshotsAtWidths(String name) {
        for (int shown : WIDTHS) {
            // A headless window starts at least 500 px wide; it shrinks when asked afterwards.
            driver().manage().window().setSize(new Dimension(shown, height));
            screenshot(name + "-" + shown + ".png");
        }
        driver().manage().window().setSize(new Dimension(width, height));
    }

    /**
     * A phone's viewport, as DevTools' device mode sets it (a headless window may not shrink that
     * far); returns once the page sees it.
     */
    public void phoneViewport(int phoneWidth, int phoneHeight) {
        driver().executeCdpCommand("Emulation.setDeviceMetricsOverride",
                Map.of("width", phoneWidth, "height", phoneHeight, "deviceScaleFactor", 1, "mobile", true));
        new WebDriverWait(driver(), Duration.ofSeconds(15)).until(
                d -> ((Number) driver().executeScript("return window.innerWidth")).intValue() == phoneWidth);
    }

    /** Closes the open browser, if any, and removes its profile. */
    public void close() {
        if (driver == null) {
            return;
        }
        try {
            driver.quit();
        }
        finally {
            driver = null;
            FileSystemUtils.deleteRecursively(profile.toFile());
            profile = null;
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }
}
