package io.queuegate.demo.shop;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.text.MessageFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.springframework.http.HttpCookie;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.util.HtmlUtils;

/**
 * The shop's pages for a browser: a product with its price, the units left and a "buy one" form,
 * and the page after an order. A shopper QueueGate admits lands on the product's page, not on its
 * JSON. English or Korean, as the shopper chose on the waiting room's language switch (its
 * {@code queue_lang} cookie), else as the browser asks.
 */
final class ShopPages {

    static final String SHOP = "Demo shop";

    private static final Map<String, Map<String, String>> WORDS = Map.of(
            "en", Map.of("buy", "Buy one", "left", "{0,choice,0#Sold out|1#1 left|1<{0,number,integer} left}",
                    "note", "A demo: nothing is really sold or charged.",
                    "ordered", "Thank you", "ordered.text", "Order {0} is placed: {1} \u00d7 {2}.",
                    "refused", "Not ordered", "shop", SHOP),
            "ko", Map.of("buy", "1개 구매", "left", "{0,choice,0#품절|0<남은 수량 {0,number,integer}개}",
                    "note", "데모입니다. 실제로 판매되거나 결제되지 않습니다.",
                    "ordered", "주문해 주셔서 감사합니다", "ordered.text", "주문 {0}번이 접수되었습니다: {2} {1}개.",
                    "refused", "주문하지 못했습니다", "shop", "데모 쇼핑몰"));

    private final String product = read("pages/product.html");
    private final String ordered = read("pages/ordered.html");

    /**
     * True when the client ranks HTML above JSON, as QueueGate decides it for its own pages:
     * {@code *}{@code /*} alone (curl) means JSON.
     */
    static boolean wantsPage(ServerHttpRequest request) {
        List<MediaType> accepted;
        try {
            accepted = request.getHeaders().getAccept();
        }
        catch (IllegalArgumentException unparsable) {
            return false;
        }
        return quality(accepted, MediaType.TEXT_HTML) > quality(accepted, MediaType.APPLICATION_JSON);
    }

    private static double quality(List<MediaType> accepted, MediaType type) {
        double best = 0;
        for (MediaType candidate : accepted) {
            if (candidate.includes(type)) {
                double q = candidate.getQualityValue();
                best = Math.max(best, candidate.isWildcardType() || candidate.isWildcardSubtype() ? q - 0.001 : q);
            }
        }
        return best;
    }

    /** Korean when the shopper chose it or the browser asks for it first; else English. */
    static String language(ServerHttpRequest request) {
        HttpCookie chosen = request.getCookies().getFirst("queue_lang");
        if (chosen != null) {
            return chosen.getValue().toLowerCase(Locale.ROOT).startsWith("ko") ? "ko" : "en";
        }
        List<Locale.LanguageRange> ranges;
        try {
            ranges = Locale.LanguageRange.parse(String.valueOf(request.getHeaders().getFirst("Accept-Language")));
        }
        catch (IllegalArgumentException unparsable) {
            return "en";
        }
        Locale best = Locale.lookup(ranges, List.of(Locale.ENGLISH, Locale.KOREAN));
        return best != null && best.getLanguage().equals("ko") ? "ko" : "en";
    }

    String product(ShopController.ProductView view, String language) {
        Map<String, String> words = WORDS.get(language);
        return fill(product, Map.of("lang", language, "shop", words.get("shop"), "name", view.name(), "id", view.id(),
                "price", String.format(Locale.ROOT, "%d.%02d", view.price() / 100, view.price() % 100),
                "left", format(words.get("left"), language, view.stock()), "buy", words.get("buy"),
                "note", words.get("note")));
    }

    String ordered(ShopController.OrderView order, String productName, String language) {
        Map<String, String> words = WORDS.get(language);
        return fill(ordered, Map.of("lang", language, "shop", words.get("shop"), "title", words.get("ordered"),
                "text", format(words.get("ordered.text"), language, order.orderId(), order.quantity(), productName),
                "note", words.get("note")));
    }

    String refused(String message, String language) {
        Map<String, String> words = WORDS.get(language);
        return fill(ordered, Map.of("lang", language, "shop", words.get("shop"), "title", words.get("refused"),
                "text", message, "note", words.get("note")));
    }

    private static String format(String pattern, String language, Object... args) {
        return new MessageFormat(pattern, Locale.forLanguageTag(language)).format(args);
    }

    /** The template with each {@code {{name}}} replaced by its value, HTML-escaped. */
    private static String fill(String template, Map<String, String> values) {
        String html = template;
        for (Map.Entry<String, String> value : values.entrySet()) {
            html = html.replace("{{" + value.getKey() + "}}", HtmlUtils.htmlEscape(value.getValue(), "UTF-8"));
        }
        return html;
    }

    private static String read(String name) {
        try (InputStream in = ShopPages.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
