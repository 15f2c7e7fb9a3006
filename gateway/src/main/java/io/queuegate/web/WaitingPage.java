package io.queuegate.web;

import java.time.Clock;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

import org.springframework.context.MessageSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;

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

    /** The shipped proof-of-work page, on the classpath. */
    public static final String DEFAULT_CHALLENGE_TEMPLATE = "queuegate/challenge-page.html";

    /** A refresh after a day: a page with nothing to wait for, which a tab left open still renews. */
    static final long NEVER = 86_400;

    private final String waitingTemplate;
    private final String unavailableTemplate;
    private final String challengeTemplate;
    private final PageTexts texts;
    private final PageLanguages languages;
    private final PageSecurityPolicy securityPolicy;
    private final LinePage lines;
    private final PageFrame frame;
    private final String powSearch = PowSearchScript.CLASSIC; // read at startup, not on a request's thread

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
        this.waitingTemplate = PageTexts.read(waitingTemplate);
        this.unavailableTemplate = PageTexts.read(unavailableTemplate);
        this.challengeTemplate = PageTexts.read(challengeTemplate);
        this.texts = new PageTexts(messages);
        this.securityPolicy = new PageSecurityPolicy(branding);
        this.lines = new LinePage(texts, clock);
        this.frame = new PageFrame(texts, branding, languages);
    }

    /**
     * The Content-Security-Policy a rendered page is served with: nothing but its own inline
     * scripts and styles (by SHA-256), scripts, styles, images and requests from the gateway's own
     * origin, a proof-of-work worker from a {@code blob:} address, and images from the logo's
     * origin when the logo is an absolute URL. A shop's template may load anything it needs from
     * the gateway's origin.
     */
    public String contentSecurityPolicy(String html) {
        return securityPolicy.of(html);
    }

    /** The languages the pages' switch offers, and the shopper's choice among them. */
    public PageLanguages languages() {
        return languages;
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
        Map<String, String> values = frame.values(request);
        values.put("challenge", challengeJson);
        // A second more than the ticket needs: a refresh that comes early only waits again.
        long refresh = noScriptWait < 0 ? 30 : noScriptWait + 1;
        values.put("noScriptRefresh", Long.toString(refresh));
        values.put("noScriptText", noScriptWait < 0 ? texts.message("queuegate.page.challenge.noscript", locale)
                : texts.message("queuegate.page.challenge.wait", locale, texts.duration(refresh, locale)));
        values.put("refusals", texts.refusals(locale));
        values.put("html:powSearch", powSearch);
        return texts.fill(challengeTemplate, locale, values);
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
        return texts.fill(waitingTemplate, request.locale(), lines.waiting(frame.values(request), productId, displayName, rank,
                estimatedWaitSeconds, refreshSeconds, seedCommitment, stock, withinStock, arrivalRank, request));
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
        return texts.fill(waitingTemplate, request.locale(), lines.preQueue(frame.values(request), productId, displayName,
                opensAt, refreshSeconds, seedCommitment, preQueued, comeBackBy, request));
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

        String messagePrefix() {
            return messagePrefix;
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
        return notice(request, texts.message(notice.messagePrefix + ".title", locale),
                texts.message(notice.messagePrefix + ".text", locale), refreshSeconds, null, null);
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
        return notice(request, texts.message("queuegate.page.sold-out.title", locale),
                texts.message(holdsPlace ? "queuegate.page.sold-out.named.kept" : "queuegate.page.sold-out.named.none",
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
        return notice(request, texts.message("queuegate.page.left.title", locale),
                texts.message("queuegate.page.left.text", locale, productName), 0, request.back(),
                texts.message("queuegate.page.left.again", locale));
    }

    private String notice(PageRequest request, String title, String text, long refreshSeconds, String link,
            String linkText) {
        return texts.fill(unavailableTemplate, request.locale(),
                frame.notice(request, title, text, refreshSeconds, link, linkText));
    }
}
