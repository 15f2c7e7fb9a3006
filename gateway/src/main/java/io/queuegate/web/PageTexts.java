package io.queuegate.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.context.MessageSource;
import org.springframework.context.NoSuchMessageException;
import org.springframework.core.io.Resource;
import org.springframework.web.util.HtmlUtils;

/**
 * The words on the shoppers' pages and how they go into a template: {@code {{name}}} for values,
 * {@code {{msg:key}}} for texts from the message bundles, {@code {{html:name}}} for markup the
 * gateway wrote itself; every other value is HTML-escaped.
 */
final class PageTexts {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([A-Za-z0-9_.:-]+)}}");

    private final MessageSource messages;

    PageTexts(MessageSource messages) {
        this.messages = messages;
    }

    String duration(long seconds, Locale locale) {
        return seconds >= 90 ? message("queuegate.page.minutes", locale, Math.round(seconds / 60.0))
                : message("queuegate.page.seconds", locale, seconds);
    }

    String fill(String template, Locale locale, Map<String, String> values) {
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

    String message(String key, Locale locale, Object... args) {
        try {
            return messages.getMessage(key, args, locale);
        }
        catch (NoSuchMessageException ex) {
            return key;
        }
    }

    /**
     * The notices a join may be refused with once the browser has done its proof of work (the room
     * closed, the sale ended meanwhile), in the shopper's language, keyed by the error code the
     * JSON answer names: the page shows the notice, not the answer's English message.
     */
    String refusals(Locale locale) {
        StringBuilder json = new StringBuilder("{");
        for (QueueError error : QueueError.values()) {
            WaitingPage.Notice notice = WaitingPage.Notice.of(error);
            if (notice == null) {
                continue;
            }
            if (json.length() > 1) {
                json.append(',');
            }
            json.append(jsonString(error.code())).append(":{\"title\":")
                    .append(jsonString(message(notice.messagePrefix() + ".title", locale))).append(",\"text\":")
                    .append(jsonString(message(notice.messagePrefix() + ".text", locale))).append('}');
        }
        return json.append('}').toString();
    }

    static String jsonString(String value) {
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

    static String read(Resource template) {
        try (InputStream in = template.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("QueueGate page template " + template + " cannot be read", ex);
        }
    }
}
