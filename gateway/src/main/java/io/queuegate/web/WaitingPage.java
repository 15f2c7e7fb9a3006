package io.queuegate.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.FormatStyle;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.context.MessageSource;
import org.springframework.context.NoSuchMessageException;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.web.util.HtmlUtils;

/**
 * The HTML pages shoppers see: the waiting page (rank, estimated wait, progress, live updates by
 * server-sent events with polling as fallback, and a meta refresh when JavaScript is off) and
 * the notice pages (temporarily unavailable, sale ended, room closed, invitation refused, a token
 * from another network), and the page that solves a join's proof of work. Templates are plain HTML
 * with {@code {{name}}} for values and {@code {{msg:key}}} for texts from the message bundles (and
 * {@code {{html:languageSwitch}}}, the language switch's markup, which the gateway writes itself), so a
 * shop can replace the template
 * ({@code queuegate.page.template}) and add languages or wording ({@code queuegate.page.messages})
 * without code. Every inserted value is HTML-escaped. A shop's branding ({@link PageBranding}) goes
 * on every page, and each page is served with a Content-Security-Policy that allows its own inline
 * scripts and styles by hash, and images from the gateway and the logo's one origin.
 */
public class WaitingPage {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([A-Za-z0-9_.:-]+)}}");

    /** The shipped proof-of-work page, on the classpath. */
    public static final String DEFAULT_CHALLENGE_TEMPLATE = "queuegate/challenge-page.html";

    /** A page's inline scripts and styles, whose hashes its Content-Security-Policy lists. */
    private static final Pattern INLINE = Pattern.compile("<(script|style)\\b([^>]*)>(.*?)</\\1\\s*>",
            Pattern.DOTALL | Pattern.CASE_INSENSITIVE);
    private static final Pattern SOURCED = Pattern.compile("\\bsrc\\s*=", Pattern.CASE_INSENSITIVE);

    /** A refresh after a day: a page with nothing to wait for, which a tab left open still renews. */
    static final long NEVER = 86_400;

    /** More distinct inline blocks than this means a template puts values into them: hash, do not keep. */
    private static final int MAX_KEPT_HASHES = 64;

    private final String waitingTemplate;
    private final String unavailableTemplate;
    private final String challengeTemplate;
    private final MessageSource messages;
    private final PageBranding branding;
    private final Clock clock;
    private final PageLanguages languages;
    private final Map<String, String> hashes = new ConcurrentHashMap<>();

    /** With the shipped page for proof-of-work challenges. */
    public WaitingPage(Resource waitingTemplate, Resource unavailableTemplate, MessageSource messages) {
        this(waitingTemplate, unavailableTemplate, new ClassPathResource(DEFAULT_CHALLENGE_TEMPLATE), messages);
    }

    public WaitingPage(Resource waitingTemplate, Resource unavailableTemplate, Resource challengeTemplate,
            MessageSource messages) {
        this(waitingTemplate, unavailableTemplate, challengeTemplate, messages, PageBranding.NONE, Clock.systemUTC());
    }

    /**
     * @param clock the gateway's clock: the pre-queue's countdown starts from its time, not from
     *              the shopper's device's, which may be minutes off
     */
    public WaitingPage(Resource waitingTemplate, Resource unavailableTemplate, Resource challengeTemplate,
            MessageSource messages, PageBranding branding, Clock clock) {
        this(waitingTemplate, unavailableTemplate, challengeTemplate, messages, branding, clock, PageLanguages.SHIPPED);
    }

    /** @param languages the languages the pages' switch offers */
    public WaitingPage(Resource waitingTemplate, Resource unavailableTemplate, Resource challengeTemplate,
            MessageSource messages, PageBranding branding, Clock clock, PageLanguages languages) {
        this.languages = languages;
        this.waitingTemplate = read(waitingTemplate);
        this.unavailableTemplate = read(unavailableTemplate);
        this.challengeTemplate = read(challengeTemplate);
        this.messages = messages;
        this.branding = branding;
        this.clock = clock;
    }

    /**
     * The Content-Security-Policy a rendered page is served with: nothing but its own inline
     * scripts and styles (by SHA-256), scripts, styles, images and requests from the gateway's own
     * origin, a proof-of-work worker from a {@code blob:} address, and images from the logo's
     * origin when the logo is an absolute URL. A shop's template may load anything it needs from
     * the gateway's origin.
     */
    public String contentSecurityPolicy(String html) {
        StringBuilder scripts = new StringBuilder();
        StringBuilder styles = new StringBuilder();
        Matcher inline = INLINE.matcher(html);
        while (inline.find()) {
            if (inline.group(1).equalsIgnoreCase("script") && SOURCED.matcher(inline.group(2)).find()) {
                continue;
            }
            (inline.group(1).equalsIgnoreCase("script") ? scripts : styles).append(" '").append(hash(inline.group(3)))
                    .append('\'');
        }
        return "default-src 'none'; script-src 'self'" + scripts + "; style-src 'self'" + styles
                + "; img-src 'self'" + (branding.logoOrigin() == null ? "" : " " + branding.logoOrigin())
                + "; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'self'";
    }

    private String hash(String block) {
        String known = hashes.get(block);
        if (known != null) {
            return known;
        }
        String hash;
        try {
            hash = "sha256-" + Base64.getEncoder().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(block.getBytes(StandardCharsets.UTF_8)));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java has SHA-256", ex);
        }
        if (hashes.size() < MAX_KEPT_HASHES) {
            hashes.put(block, hash);
        }
        return hash;
    }

    /** The languages the pages' switch offers, and the shopper's choice among them. */
    public PageLanguages languages() {
        return languages;
    }

    /** What every page shows of the shop, the page's language, and the switch to the others. */
    private Map<String, String> page(PageRequest request) {
        Locale locale = request.locale();
        Map<String, String> values = new HashMap<>();
        values.put("lang", locale.getLanguage());
        values.put("html:languageSwitch", languages.markup(locale, request.back(),
                message("queuegate.page.language", locale)));
        values.put("shopName", branding.shopName() == null ? "" : branding.shopName());
        values.put("tagline", branding.tagline() == null ? "" : branding.tagline());
        values.put("logoUrl", branding.logoUrl() == null ? "" : branding.logoUrl());
        // Beside the shop's name the logo says nothing more to a screen reader.
        values.put("logoAlt", branding.shopName() != null ? "" : message("queuegate.page.logo", locale));
        values.put("brandSection", branding.shown() ? "" : "hidden");
        values.put("logoSection", branding.logoUrl() == null ? "hidden" : "");
        values.put("shopNameSection", branding.shopName() == null ? "hidden" : "");
        values.put("taglineSection", branding.tagline() == null ? "hidden" : "");
        values.put("primaryColor", branding.primary());
        values.put("accentColor", branding.accent());
        return values;
    }

    /**
     * The page a browser gets when its join must pay a proof of work: it solves the challenge by
     * itself in a Web Worker, showing that it is checking the browser, joins again with the
     * solution, and reloads, so the token cookie it was given takes over. Without JavaScript it
     * says that the sale needs it.
     *
     * @param challengeJson the challenge as the JSON answers carry it
     */
    public String renderChallenge(String challengeJson, Locale locale) {
        return renderChallenge(challengeJson, -1, PageRequest.of(locale));
    }

    /**
     * The proof-of-work page for {@code request}'s language and address.
     *
     * @param noScriptWait how long a browser without JavaScript waits before the page refreshes
     *                     itself and joins with its wait ticket, in seconds; -1 without a ticket
     */
    public String renderChallenge(String challengeJson, long noScriptWait, PageRequest request) {
        Locale locale = request.locale();
        Map<String, String> values = page(request);
        values.put("challenge", challengeJson);
        // A second more than the ticket needs: a refresh that comes early only waits again.
        long refresh = noScriptWait < 0 ? 30 : noScriptWait + 1;
        values.put("noScriptRefresh", Long.toString(refresh));
        values.put("noScriptText", noScriptWait < 0 ? message("queuegate.page.challenge.noscript", locale)
                : message("queuegate.page.challenge.wait", locale, duration(refresh, locale)));
        values.put("refusals", refusals(locale));
        values.put("html:powSearch", PowSearchScript.CLASSIC);
        return fill(challengeTemplate, locale, values);
    }

    /**
     * The notices a join may be refused with once the browser has done its proof of work (the room
     * closed, the sale ended meanwhile), in the shopper's language, keyed by the error code the
     * JSON answer names: the page shows the notice, not the answer's English message.
     */
    private String refusals(Locale locale) {
        StringBuilder json = new StringBuilder("{");
        for (QueueError error : QueueError.values()) {
            Notice notice = Notice.of(error);
            if (notice == null) {
                continue;
            }
            if (json.length() > 1) {
                json.append(',');
            }
            json.append(jsonString(error.code())).append(":{\"title\":")
                    .append(jsonString(message(notice.messagePrefix + ".title", locale))).append(",\"text\":")
                    .append(jsonString(message(notice.messagePrefix + ".text", locale))).append('}');
        }
        return json.append('}').toString();
    }

    private static String jsonString(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    }
                    else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /**
     * @param estimatedWaitSeconds {@code null} until a rate is known
     * @param refreshSeconds when the page asks again (meta refresh and polling fallback)
     */
    public String render(String productId, long rank, Long estimatedWaitSeconds, long refreshSeconds, Locale locale) {
        return render(productId, null, rank, estimatedWaitSeconds, refreshSeconds, null, locale);
    }

    /**
     * @param displayName what the page calls the product; {@code null} for its id
     * @param estimatedWaitSeconds {@code null} until a rate is known
     * @param refreshSeconds when the page asks again (meta refresh and polling fallback)
     * @param seedCommitment the commitment to the seed of the product's pre-queue draw, shown behind
     *                       a "how is this fair?" disclosure; {@code null} when it has none
     */
    public String render(String productId, String displayName, long rank, Long estimatedWaitSeconds,
            long refreshSeconds, String seedCommitment, Locale locale) {
        return render(productId, displayName, rank, estimatedWaitSeconds, refreshSeconds, seedCommitment, null, null,
                locale);
    }

    /**
     * The waiting page with the stock left beside the rank ("37 left, 120 people ahead of you"),
     * said kindly when the stock may not reach the shopper's place.
     *
     * @param stock the units the product has left; {@code null} while unknown, and then not shown
     * @param withinStock whether that stock can serve the place once everyone ahead has bought
     */
    public String render(String productId, String displayName, long rank, Long estimatedWaitSeconds,
            long refreshSeconds, String seedCommitment, Long stock, Boolean withinStock, Locale locale) {
        return render(productId, displayName, rank, estimatedWaitSeconds, refreshSeconds, seedCommitment, stock,
                withinStock, rank, PageRequest.of(locale));
    }

    /**
     * The waiting page with its progress through the line: how far the place has come from the
     * rank it had when the shopper arrived.
     *
     * @param arrivalRank the place's rank when the shopper arrived (the current rank when not known)
     */
    public String render(String productId, String displayName, long rank, Long estimatedWaitSeconds,
            long refreshSeconds, String seedCommitment, Long stock, Boolean withinStock, long arrivalRank,
            PageRequest request) {
        Locale locale = request.locale();
        String eta = estimatedWaitSeconds == null ? "" : Long.toString(estimatedWaitSeconds);
        String etaText = estimatedWaitSeconds == null ? message("queuegate.page.eta.unknown", locale)
                : message("queuegate.page.eta", locale, duration(estimatedWaitSeconds, locale));
        String name = displayName != null ? displayName : productId;
        Map<String, String> values = line(productId, displayName, refreshSeconds, seedCommitment, request);
        long arrival = Math.max(arrivalRank, rank);
        values.put("rank", Long.toString(rank));
        values.put("rankSaid", message("queuegate.page.said", locale, rank));
        values.put("arrivalRank", Long.toString(arrival));
        values.put("progress", Long.toString(progress(arrival, rank)));
        values.put("eta", eta);
        values.put("etaText", etaText);
        values.put("intro", message("queuegate.page.intro", locale, name));
        values.put("opensAt", "");
        values.put("opensAtText", "");
        values.put("preQueuedText", "");
        values.put("openingSection", "hidden");
        values.put("rankSection", "");
        values.put("comeBack", "");
        values.put("comeBackSection", "hidden");
        values.put("stock", stock == null ? "" : Long.toString(stock));
        values.put("stockText", stockText(stock, rank, withinStock, locale));
        values.put("stockSection", stock == null ? "hidden" : "");
        return fill(waitingTemplate, locale, values);
    }

    /**
     * How far a place has come, in percent: from 0 at the rank it had on arrival to 100 at the
     * front of the line (where a place that arrived there already is).
     */
    static long progress(long arrivalRank, long rank) {
        if (arrivalRank <= 1) {
            return 100;
        }
        return Math.max(0, Math.min(100, Math.round(100.0 * (arrivalRank - rank) / (arrivalRank - 1))));
    }

    /** "37 left, 120 people ahead of you", and a kind word when the stock may not reach the place. */
    private String stockText(Long stock, long rank, Boolean withinStock, Locale locale) {
        if (stock == null) {
            return "";
        }
        String left = message("queuegate.page.stock", locale, stock, Math.max(0, rank - 1));
        return Boolean.FALSE.equals(withinStock) ? left + " " + message("queuegate.page.stock.short", locale) : left;
    }

    /**
     * The pre-queue of a scheduled sale: no rank yet (places are drawn at opening); the page
     * reloads itself at the opening, or sooner when abandon-after asks for it. The draw's commitment
     * ({@code null} when it has none, as for a draw a previous release opened) is shown behind a
     * "how is this fair?" disclosure.
     */
    public String renderPreQueue(String productId, Instant opensAt, long refreshSeconds, Locale locale) {
        return renderPreQueue(productId, null, opensAt, refreshSeconds, null, locale);
    }

    /**
     * The pre-queue page, calling the product {@code displayName} ({@code null} for its id), with
     * the draw's seed commitment ({@code null} when it has none).
     */
    public String renderPreQueue(String productId, String displayName, Instant opensAt, long refreshSeconds,
            String seedCommitment, Locale locale) {
        return renderPreQueue(productId, displayName, opensAt, refreshSeconds, seedCommitment, 0, null, locale);
    }

    /**
     * The pre-queue page with the opening as a countdown in the shopper's own time (the gateway's
     * UTC time without JavaScript), how many wait for the opening, and until when after it a
     * shopper who leaves may come back and keep the place.
     *
     * @param preQueued how many are in the pre-queue; 0 when not known, and then not shown
     * @param comeBackBy the latest the shopper may come back after the opening and keep the
     *                   place; {@code null} when not known, and then not shown
     */
    public String renderPreQueue(String productId, String displayName, Instant opensAt, long refreshSeconds,
            String seedCommitment, long preQueued, Instant comeBackBy, Locale locale) {
        return renderPreQueue(productId, displayName, opensAt, refreshSeconds, seedCommitment, preQueued, comeBackBy,
                PageRequest.of(locale));
    }

    /** The pre-queue page for {@code request}'s language and address. */
    public String renderPreQueue(String productId, String displayName, Instant opensAt, long refreshSeconds,
            String seedCommitment, long preQueued, Instant comeBackBy, PageRequest request) {
        Locale locale = request.locale();
        String opens = DateTimeFormatter.ofLocalizedDateTime(FormatStyle.LONG, FormatStyle.SHORT)
                .withLocale(locale).withZone(ZoneOffset.UTC).format(opensAt);
        String name = displayName != null ? displayName : productId;
        Map<String, String> values = line(productId, displayName, refreshSeconds, seedCommitment, request);
        values.put("rank", "");
        values.put("rankSaid", "");
        values.put("arrivalRank", "");
        values.put("progress", "0");
        values.put("eta", "");
        values.put("etaText", "");
        values.put("intro", message("queuegate.page.pre-queue", locale, name, opens));
        values.put("opensAt", opensAt.toString());
        values.put("opensAtText", message("queuegate.page.opens-at", locale, opens));
        values.put("preQueuedText", preQueued > 0 ? message("queuegate.page.pre-queued", locale, preQueued) : "");
        values.put("openingSection", "");
        values.put("rankSection", "hidden");
        long comeBackSeconds = comeBackBy == null ? 0 : Duration.between(opensAt, comeBackBy).toSeconds();
        values.put("comeBack", comeBackSeconds > 0
                ? message("queuegate.page.come-back", locale, duration(comeBackSeconds, locale)) : "");
        values.put("comeBackSection", comeBackSeconds > 0 ? "" : "hidden");
        values.put("stock", "");
        values.put("stockText", "");
        values.put("stockSection", "hidden");
        return fill(waitingTemplate, locale, values);
    }

    /** What the waiting page shows before and after an opening alike. */
    private Map<String, String> line(String productId, String displayName, long refreshSeconds, String seedCommitment,
            PageRequest request) {
        Locale locale = request.locale();
        Map<String, String> values = page(request);
        values.put("productId", productId);
        values.put("productName", displayName != null ? displayName : productId);
        // What the live page says if the product sells out while this shopper waits, in line or drawn.
        values.put("soldOutText", message("queuegate.page.sold-out.named.kept", locale,
                displayName != null ? displayName : productId));
        values.put("title", title(displayName, locale));
        values.put("seedCommitment", seedCommitment == null ? "" : seedCommitment);
        values.put("drawSection", seedCommitment == null ? "hidden" : "");
        values.put("retryAfter", Long.toString(refreshSeconds));
        values.put("eventsUrl", QueuePaths.PREFIX + productId + "/events");
        values.put("statusUrl", QueuePaths.PREFIX + productId + "/status");
        values.put("leaveUrl", QueuePaths.PREFIX + productId + "/leave");
        values.put("back", request.back() == null ? "" : request.back());
        values.put("serverNow", Long.toString(clock.millis()));
        return values;
    }

    /** The page title: it names the product only when it has a display-name (an id says little in a tab). */
    private String title(String displayName, Locale locale) {
        return displayName == null ? message("queuegate.page.title", locale)
                : message("queuegate.page.title.named", locale, displayName);
    }

    /**
     * The pages that take nobody in line: Redis unavailable, sale ended, room closed, invitation
     * refused, and a token from another network than its own.
     */
    public enum Notice {
        UNAVAILABLE("queuegate.page.unavailable"),
        SALE_ENDED("queuegate.page.sale-ended"),
        SOLD_OUT("queuegate.page.sold-out"),
        ROOM_CLOSED("queuegate.page.room-closed"),
        INVITE_ONLY("queuegate.page.invite-only"),
        INVITE_USED("queuegate.page.invite-used"),
        TOKEN_BOUND("queuegate.page.token-bound");

        private final String messagePrefix;

        Notice(String messagePrefix) {
            this.messagePrefix = messagePrefix;
        }

        /** The notice page for an error, or {@code null} when the error has none (bad requests). */
        public static Notice of(QueueError error) {
            return switch (error) {
                case QUEUE_UNAVAILABLE -> UNAVAILABLE;
                case SALE_ENDED -> SALE_ENDED;
                case SOLD_OUT -> SOLD_OUT;
                case ROOM_CLOSED, QUEUE_CLOSED -> ROOM_CLOSED;
                case INVITE_REQUIRED, INVITE_INVALID -> INVITE_ONLY;
                case INVITE_USED -> INVITE_USED;
                case TOKEN_BOUND -> TOKEN_BOUND;
                default -> null;
            };
        }
    }

    /**
     * @param refreshSeconds when the page reloads itself; 0 for never (a sale that ended)
     */
    public String renderNotice(Notice notice, long refreshSeconds, Locale locale) {
        return renderNotice(notice, refreshSeconds, PageRequest.of(locale));
    }

    /**
     * A notice page for {@code request}'s language and address. With JavaScript it asks again in
     * the background every {@code refreshSeconds} and reloads only when the answer has changed, so
     * a screen reader is not sent back to the top of an unchanged page; without, it reloads itself.
     */
    public String renderNotice(Notice notice, long refreshSeconds, PageRequest request) {
        Locale locale = request.locale();
        return notice(request, message(notice.messagePrefix + ".title", locale),
                message(notice.messagePrefix + ".text", locale), refreshSeconds, null, null);
    }

    /**
     * The sold-out page that names the product and tells the truth to each shopper: one who holds
     * a place hears it is kept should more arrive; one who holds none (who never waited) hears
     * only that the product is sold out.
     *
     * @param productName the product's name in the page's language, or its id
     * @param holdsPlace whether the shopper holds a place in its line
     */
    public String renderSoldOut(String productName, boolean holdsPlace, PageRequest request) {
        Locale locale = request.locale();
        return notice(request, message("queuegate.page.sold-out.title", locale),
                message(holdsPlace ? "queuegate.page.sold-out.named.kept" : "queuegate.page.sold-out.named.none",
                        locale, productName), 0, null, null);
    }

    /**
     * The page a shopper gets once they have left the line: it names the product and offers a way
     * back in, at the back of the line, through the address they waited on.
     *
     * @param productName the product's name in the page's language, or its id
     */
    public String renderLeft(String productName, PageRequest request) {
        Locale locale = request.locale();
        return notice(request, message("queuegate.page.left.title", locale),
                message("queuegate.page.left.text", locale, productName), 0, request.back(),
                message("queuegate.page.left.again", locale));
    }

    private String notice(PageRequest request, String title, String text, long refreshSeconds, String link,
            String linkText) {
        Map<String, String> values = page(request);
        values.put("title", title);
        values.put("text", text);
        // A page that has nothing to wait for does not reload: a day is as good as never.
        values.put("retryAfter", Long.toString(refreshSeconds > 0 ? refreshSeconds : NEVER));
        values.put("linkUrl", link == null ? "" : link);
        values.put("linkText", linkText == null ? "" : linkText);
        values.put("linkSection", link == null ? "hidden" : "");
        return fill(unavailableTemplate, request.locale(), values);
    }

    private String duration(long seconds, Locale locale) {
        return seconds >= 90 ? message("queuegate.page.minutes", locale, Math.round(seconds / 60.0))
                : message("queuegate.page.seconds", locale, seconds);
    }

    private String fill(String template, Locale locale, Map<String, String> values) {
        Matcher matcher = PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder(template.length() + 256);
        while (matcher.find()) {
            String name = matcher.group(1);
            String value = name.startsWith("msg:") ? message(name.substring(4), locale) : values.get(name);
            // html: values are markup the gateway wrote itself, every value in it escaped.
            String shown = value == null ? matcher.group()
                    : name.startsWith("html:") ? value : HtmlUtils.htmlEscape(value, "UTF-8");
            matcher.appendReplacement(out, Matcher.quoteReplacement(shown));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    private String message(String key, Locale locale, Object... args) {
        try {
            return messages.getMessage(key, args, locale);
        }
        catch (NoSuchMessageException ex) {
            return key;
        }
    }

    private static String read(Resource template) {
        try (InputStream in = template.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("QueueGate page template " + template + " cannot be read", ex);
        }
    }
}
