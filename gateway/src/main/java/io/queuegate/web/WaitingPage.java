package io.queuegate.web;

import org.springframework.web.util.HtmlUtils;

/**
 * The HTML waiting page for browsers. It refreshes itself after {@code Retry-After} seconds
 * by reloading the page the shopper asked for, with no JavaScript: the gateway answers that
 * reload with the product page as soon as the shopper is admitted.
 */
public class WaitingPage {

    public String render(String productId, long rank, long refreshSeconds) {
        String product = HtmlUtils.htmlEscape(productId);
        return """
                <!DOCTYPE html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <meta http-equiv="refresh" content="%d">
                <title>You are in line</title>
                <style>
                body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
                .rank{font-size:3rem;font-weight:700;margin:.5rem 0}
                </style>
                </head>
                <body>
                <main>
                <h1>You are in line</h1>
                <p>Product <strong>%s</strong> is in high demand, so shoppers are let in one by one.</p>
                <p>Your place in line:</p>
                <p class="rank" role="status" aria-live="polite" data-rank="%d">%d</p>
                <p>Keep this tab open: it moves on to the shop by itself when it is your turn.</p>
                </main>
                </body>
                </html>
                """.formatted(refreshSeconds, product, rank, rank);
    }
}
