package io.queuegate.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
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
 * Debian's Chromium, headless, for the page tests: the browsers a test opens, each with a profile
 * of its own (removed when it closes) and this window size. A test class registers it as a JUnit
 * extension in a static field:
 *
 * <pre>
 * &#64;RegisterExtension
 * static final HeadlessChromium chromium = HeadlessChromium.window(420, 860);
 * </pre>
 *
 * <p>A machine without Chromium then skips the whole class, saying why, before its
 * {@code @BeforeAll} starts anything ({@code .ci/run} installs Chromium); nothing else skips it.
 * A test {@linkplain #open(String) opens} as many browsers as it needs (shoppers of their own);
 * they close after the test, or earlier with {@link #close()}. The helpers act on the browser
 * opened last unless given another. Screenshots go under the running module's
 * {@code target/screenshots/} ({@code gateway-tests/target/screenshots/} for the library's pages).
 * {@link #assertAccessibleAtWidths(String)} runs axe-core on the page at both widths.
 *
 * <p>Without the extension, {@link #assumeInstalled()} in {@code @BeforeAll} and
 * {@link #start(String, int, int)} (one browser, closed by the test) do the same by hand.
 */
public final class HeadlessChromium implements ExecutionCondition, AfterEachCallback, AfterAllCallback,
        AutoCloseable {

    private static final File BINARY = new File("/usr/bin/chromium");
    private static final File DRIVER = new File("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final String MISSING = "needs Debian's chromium and chromium-driver "
            + "(apt-get install chromium chromium-driver); .ci/run installs them";

    /** The widths {@link #screenshotsAtWidths} shows a page at: a phone's and a desktop's. */
    private static final List<Integer> WIDTHS = List.of(390, 1280);

    /**
     * A script that notes every directive a page's Content-Security-Policy refuses in
     * {@code window.queuegateViolations} (see {@link #watchPolicyViolations()}).
     */
    public static final String WATCH_POLICY_VIOLATIONS = """
            window.queuegateViolations = [];
            document.addEventListener('securitypolicyviolation', function (e) {
              window.queuegateViolations.push(e.violatedDirective + ' ' + e.blockedURI);
            });
            """;

    private final File binary;
    private final File chromedriver;
    private final int width;
    private final int height;
    private final List<Browser> open = new ArrayList<>();

    private record Browser(ChromeDriver driver, Path profile) {
    }

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

    /** For a test class without the extension: skips it, saying why, where Chromium is absent. */
    public static void assumeInstalled() {
        Assumptions.assumeTrue(window(0, 0).installed(), MISSING);
    }

    /** One browser that asks for pages in {@code language}, with a window of this size; the caller closes it. */
    public static HeadlessChromium start(String language, int width, int height) {
        HeadlessChromium chromium = window(width, height);
        chromium.open(language);
        return chromium;
    }

    boolean installed() {
        return binary.canExecute() && chromedriver.canExecute();
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return installed() ? ConditionEvaluationResult.enabled("Chromium is installed")
                : ConditionEvaluationResult.disabled(MISSING);
    }

    /** A browser that asks for pages in English (US). */
    public ChromeDriver open() {
        return open("en-US");
    }

    /** One more browser, asking for pages in {@code language}: a shopper of its own. */
    public ChromeDriver open(String language) {
        return open(language, true);
    }

    /** One more browser that runs no script at all: a shopper who turned JavaScript off. */
    public ChromeDriver openWithoutJavaScript(String language) {
        return open(language, false);
    }

    private ChromeDriver open(String language, boolean javaScript) {
        Path profile;
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
        options.setExperimentalOption("prefs", javaScript ? Map.of("intl.accept_languages", language)
                : Map.of("intl.accept_languages", language, "profile.managed_default_content_settings.javascript", 2));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver)
                .usingAnyFreePort().build();
        ChromeDriver driver;
        try {
            driver = new ChromeDriver(service, options);
        }
        catch (RuntimeException ex) {
            FileSystemUtils.deleteRecursively(profile.toFile());
            throw ex;
        }
        open.add(new Browser(driver, profile));
        return driver;
    }

    /** The browser opened last. */
    public ChromeDriver driver() {
        if (open.isEmpty()) {
            throw new IllegalStateException("no browser is open: open one first");
        }
        return open.get(open.size() - 1).driver();
    }

    /** Runs {@code script} in every document the last browser loads from now on, before the page's own scripts. */
    public void onEveryDocument(String script) {
        driver().executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", script));
    }

    /** Notes, in every document the last browser loads from now on, what its policy refuses: see {@link #policyViolations()}. */
    public void watchPolicyViolations() {
        onEveryDocument(WATCH_POLICY_VIOLATIONS);
    }

    /**
     * What the last browser's page had refused by its Content-Security-Policy since it loaded
     * (watched with {@link #watchPolicyViolations()}): each a directive and the address.
     */
    public List<?> policyViolations() {
        Object violations = driver().executeScript("return window.queuegateViolations");
        if (!(violations instanceof List<?> list)) {
            throw new IllegalStateException("the page's policy violations are not watched: " + violations);
        }
        return list;
    }

    /** Keeps what the last browser shows now as {@code target/screenshots/<name>}. */
    public void screenshot(String name) {
        screenshot(driver(), name);
    }

    /** Keeps what {@code browser} shows now as {@code target/screenshots/<name>}. */
    public static void screenshot(ChromeDriver browser, String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Files.write(SCREENSHOTS.resolve(name), browser.getScreenshotAs(OutputType.BYTES));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The last browser's page as a phone (390 px wide) and a desktop (1280 px) show it, as
     * {@code <name>-390.png} and {@code <name>-1280.png}, at the window's height; then the window
     * is as it opened.
     */
    public void screenshotsAtWidths(String name) {
        ChromeDriver browser = driver();
        for (int shown : WIDTHS) {
            // A headless window starts at least 500 px wide; it shrinks when asked afterwards.
            browser.manage().window().setSize(new Dimension(shown, height));
            screenshot(browser, name + "-" + shown + ".png");
        }
        browser.manage().window().setSize(new Dimension(width, height));
    }

    /**
     * Checks the last browser's page with axe-core ({@link AxeCore}) as a phone (390 px wide) and a
     * desktop (1280 px) show it, keeping each as {@code <name>-390.png} and {@code <name>-1280.png}
     * first; then the window is as it opened. Fails, listing every violation at either width
     * (rule, impact, the element's selector, the message), unless there is none.
     *
     * @param name the page state, for the screenshots and the failure ({@code waiting-page-ko})
     */
    public void assertAccessibleAtWidths(String name) {
        ChromeDriver browser = driver();
        List<String> found = new ArrayList<>();
        try {
            for (int shown : WIDTHS) {
                browser.manage().window().setSize(new Dimension(shown, height));
                screenshot(browser, name + "-" + shown + ".png");
                AxeCore.violations(browser).forEach(violation -> found.add(shown + " px: " + violation));
            }
        }
        finally {
            browser.manage().window().setSize(new Dimension(width, height));
        }
        if (!found.isEmpty()) {
            throw new AssertionError(found.size() + " accessibility violation(s) (axe-core, "
                    + String.join(", ", AxeCore.TAGS) + ") on " + name + " (" + browser.getCurrentUrl() + "):\n  - "
                    + String.join("\n  - ", found));
        }
    }

    /**
     * Gives the last browser a phone's viewport, as DevTools' device mode sets it (a headless
     * window may not shrink that far); returns once the page sees it.
     */
    public void phoneViewport(int phoneWidth, int phoneHeight) {
        ChromeDriver browser = driver();
        browser.executeCdpCommand("Emulation.setDeviceMetricsOverride",
                Map.of("width", phoneWidth, "height", phoneHeight, "deviceScaleFactor", 1, "mobile", true));
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(
                d -> ((Number) browser.executeScript("return window.innerWidth")).intValue() == phoneWidth);
    }

    /** Closes every open browser and removes its profile. */
    @Override
    public void close() {
        RuntimeException failed = null;
        while (!open.isEmpty()) {
            Browser browser = open.remove(open.size() - 1);
            try {
                browser.driver().quit();
            }
            catch (RuntimeException ex) {
                failed = failed == null ? ex : failed;
            }
            finally {
                FileSystemUtils.deleteRecursively(browser.profile().toFile());
            }
        }
        if (failed != null) {
            throw failed;
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
