package io.queuegate.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.FormatStyle;
import java.util.Locale;
import java.util.Map;

/**
 * The values of the waiting page ({@link WaitingPage#render}, {@link WaitingPage#renderPreQueue}):
 * the place in line, its progress, the wait and the stock, or the pre-queue's opening.
 */
final class LinePage {

    private final PageTexts texts;
    private final Clock clock;

    /**
     * @param clock the gateway's clock: the pre-queue's countdown starts from its time, not from
     *              the shopper's device's, which may be minutes off
     */
    LinePage(PageTexts texts, Clock clock) {
        this.texts = texts;
        this.clock = clock;
    }

    /** The waiting page's values added to {@code values} (what every page shows). */
    Map<String, String> waiting(Map<String, String> values, String productId, String displayName, long rank,
            Long estimatedWaitSeconds, long refreshSeconds, String seedCommitment, Long stock, Boolean withinStock,
            long arrivalRank, PageRequest request) {
        Locale locale = request.locale();
        String eta = estimatedWaitSeconds == null ? "" : Long.toString(estimatedWaitSeconds);
        String etaText = estimatedWaitSeconds == null ? texts.message("queuegate.page.eta.unknown", locale)
                : texts.message("queuegate.page.eta", locale, texts.duration(estimatedWaitSeconds, locale));
        String name = displayName != null ? displayName : productId;
        line(values, productId, displayName, refreshSeconds, seedCommitment, request);
        long arrival = Math.max(arrivalRank, rank);
        values.put("rank", Long.toString(rank));
        values.put("rankSaid", texts.message("queuegate.page.said", locale, rank));
        values.put("arrivalRank", Long.toString(arrival));
        values.put("progress", Long.toString(progress(arrival, rank)));
        values.put("eta", eta);
        values.put("etaText", etaText);
        values.put("intro", texts.message("queuegate.page.intro", locale, name));
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
        return values;
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
        String left = texts.message("queuegate.page.stock", locale, stock, Math.max(0, rank - 1));
        return Boolean.FALSE.equals(withinStock) ? left + " " + texts.message("queuegate.page.stock.short", locale)
                : left;
    }

    /** The pre-queue page's values added to {@code values} (what every page shows). */
    Map<String, String> preQueue(Map<String, String> values, String productId, String displayName, Instant opensAt,
            long refreshSeconds, String seedCommitment, long preQueued, Instant comeBackBy, PageRequest request) {
        Locale locale = request.locale();
        String opens = DateTimeFormatter.ofLocalizedDateTime(FormatStyle.LONG, FormatStyle.SHORT)
                .withLocale(locale).withZone(ZoneOffset.UTC).format(opensAt);
        String name = displayName != null ? displayName : productId;
        line(values, productId, displayName, refreshSeconds, seedCommitment, request);
        values.put("rank", "");
        values.put("rankSaid", "");
        values.put("arrivalRank", "");
        values.put("progress", "0");
        values.put("eta", "");
        values.put("etaText", "");
        values.put("intro", texts.message("queuegate.page.pre-queue", locale, name, opens));
        values.put("opensAt", opensAt.toString());
        values.put("opensAtText", texts.message("queuegate.page.opens-at", locale, opens));
        values.put("preQueuedText", preQueued > 0 ? texts.message("queuegate.page.pre-queued", locale, preQueued) : "");
        values.put("openingSection", "");
        values.put("rankSection", "hidden");
        long comeBackSeconds = comeBackBy == null ? 0 : Duration.between(opensAt, comeBackBy).toSeconds();
        values.put("comeBack", comeBackSeconds > 0
                ? texts.message("queuegate.page.come-back", locale, texts.duration(comeBackSeconds, locale)) : "");
        values.put("comeBackSection", comeBackSeconds > 0 ? "" : "hidden");
        values.put("stock", "");
        values.put("stockText", "");
        values.put("stockSection", "hidden");
        return values;
    }


    /** What the waiting page shows before and after an opening alike. */
    private void line(Map<String, String> values, String productId, String displayName, long refreshSeconds,
            String seedCommitment, PageRequest request) {
        Locale locale = request.locale();
        values.put("productId", productId);
        values.put("productName", displayName != null ? displayName : productId);
        // What the live page says if the product sells out while this shopper waits, in line or drawn.
        values.put("soldOutText", texts.message("queuegate.page.sold-out.named.kept", locale,
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
    }

    /** The page title: it names the product only when it has a display-name (an id says little in a tab). */
    private String title(String displayName, Locale locale) {
        return displayName == null ? texts.message("queuegate.page.title", locale)
                : texts.message("queuegate.page.title.named", locale, displayName);
    }
}
