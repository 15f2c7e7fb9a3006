package io.queuegate.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.FormatStyle;
import java.util.Locale;
import java.util.Map;
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
 * with {@code {{name}}} for values and {@code {{msg:key}}} for texts from the message bundles, so a
 * shop can replace the template
 * ({@code queuegate.page.template}) and add languages or wording ({@code queuegate.page.messages})
 * without code. Every inserted value is HTML-escaped.
 */
public class WaitingPage {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([A-Za-z0-9_.:-]+)}}");

    /** The shipped proof-of-work page, on the classpath. */
    public static final String DEFAULT_CHALLENGE_TEMPLATE = "queuegate/challenge-page.html";

    private final String waitingTemplate;
    private final String unavailableTemplate;
    private final String challengeTemplate;
    private final MessageSource messages;

    /** With the shipped page for proof-of-work challenges. */
    public WaitingPage(Resource waitingTemplate, Resource unavailableTemplate, MessageSource messages) {
        this(waitingTemplate, unavailableTemplate, new ClassPathResource(DEFAULT_CHALLENGE_TEMPLATE), messages);
    }

    public WaitingPage(Resource waitingTemplate, Resource unavailableTemplate, Resource challengeTemplate,
            MessageSource messages) {
        this.waitingTemplate = read(waitingTemplate);
        this.unavailableTemplate = read(unavailableTemplate);
        this.challengeTemplate = read(challengeTemplate);
        this.messages = messages;
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
        return fill(challengeTemplate, locale, Map.of(
                "lang", locale.getLanguage(),
                "challenge", challengeJson));
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
     * @param seedCommitment the commitment to the seed of the product's pre-queue draw, shown with
     *                       a line that says what it is; {@code null} when it has none
     */
    public String render(String productId, String displayName, long rank, Long estimatedWaitSeconds,
            long refreshSeconds, String seedCommitment, Locale locale) {
        String eta = estimatedWaitSeconds == null ? "" : Long.toString(estimatedWaitSeconds);
        String etaText = estimatedWaitSeconds == null ? message("queuegate.page.eta.unknown", locale)
                : message("queuegate.page.eta", locale, duration(estimatedWaitSeconds, locale));
        String name = displayName != null ? displayName : productId;
        return fill(waitingTemplate, locale, Map.ofEntries(
                Map.entry("lang", locale.getLanguage()),
                Map.entry("productId", productId),
                Map.entry("productName", name),
                Map.entry("title", title(displayName, locale)),
                Map.entry("rank", Long.toString(rank)),
                Map.entry("eta", eta),
                Map.entry("etaText", etaText),
                Map.entry("intro", message("queuegate.page.intro", locale, name)),
                Map.entry("opensAt", ""),
                Map.entry("rankSection", ""),
                Map.entry("seedCommitment", seedCommitment == null ? "" : seedCommitment),
                Map.entry("drawSection", seedCommitment == null ? "hidden" : ""),
                Map.entry("retryAfter", Long.toString(refreshSeconds)),
                Map.entry("eventsUrl", "/queue/" + productId + "/events"),
                Map.entry("statusUrl", "/queue/" + productId + "/status")));
    }

    /**
     * The pre-queue of a scheduled sale: no rank yet (places are drawn at opening); the page
     * reloads itself at the opening, or sooner when abandon-after asks for it. The draw's commitment
     * ({@code null} when it has none, as for a draw a previous release opened) is shown with a line
     * that says what it is.
     */
    public String renderPreQueue(String productId, Instant opensAt, long refreshSeconds, Locale locale) {
        return renderPreQueue(productId, null, opensAt, refreshSeconds, null, locale);
    }

    /**
     * The pre-queue page, calling the product {@code displayName} ({@code null} for its id), with
     * the draw's seed commitment ({@code null} when it has none).
     */
    public String renderPreQueue(String productId, String displayName, Instant opensAt, long refreshSeconds,
            String seedCommitment,
            Locale locale) {
        String opens = DateTimeFormatter.ofLocalizedDateTime(FormatStyle.MEDIUM, FormatStyle.LONG)
                .withLocale(locale).withZone(ZoneOffset.UTC).format(opensAt);
        String name = displayName != null ? displayName : productId;
        return fill(waitingTemplate, locale, Map.ofEntries(
                Map.entry("lang", locale.getLanguage()),
                Map.entry("productId", productId),
                Map.entry("productName", name),
                Map.entry("title", title(displayName, locale)),
                Map.entry("rank", ""),
                Map.entry("eta", ""),
                Map.entry("etaText", ""),
                Map.entry("intro", message("queuegate.page.pre-queue", locale, name, opens)),
                Map.entry("opensAt", opensAt.toString()),
                Map.entry("rankSection", "hidden"),
                Map.entry("seedCommitment", seedCommitment == null ? "" : seedCommitment),
                Map.entry("drawSection", seedCommitment == null ? "hidden" : ""),
                Map.entry("retryAfter", Long.toString(refreshSeconds)),
                Map.entry("eventsUrl", "/queue/" + productId + "/events"),
                Map.entry("statusUrl", "/queue/" + productId + "/status")));
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
        return fill(unavailableTemplate, locale, Map.of(
                "lang", locale.getLanguage(),
                "title", message(notice.messagePrefix + ".title", locale),
                "text", message(notice.messagePrefix + ".text", locale),
                // A page that has nothing to wait for does not reload: a day is as good as never.
                "retryAfter", Long.toString(refreshSeconds > 0 ? refreshSeconds : 86_400)));
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
            matcher.appendReplacement(out, Matcher.quoteReplacement(
                    value == null ? matcher.group() : HtmlUtils.htmlEscape(value, "UTF-8")));
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
