package io.queuegate.console;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.util.MimeType;

import reactor.core.publisher.Mono;

/**
 * {@code /actuator/queueconsole}: the operator console, a page that shows every queue live and
 * steers them through {@code POST /actuator/queues/{productId}}, and
 * {@code /actuator/queueconsole/products}, the one endpoint the page polls. An endpoint of its own
 * (not under {@code queues}, whose paths are product ids), served only on a management port of
 * its own: the auto-configuration leaves it out when the actuator shares the shopper port.
 */
@WebEndpoint(id = "queueconsole")
public class QueueConsoleEndpoint {

    /** What the page polls. */
    static final String PRODUCTS = "products";

    private static final MimeType HTML = MimeType.valueOf("text/html;charset=UTF-8");

    private final ConsolePage page;
    private final QueueConsole console;

    public QueueConsoleEndpoint(ConsolePage page, QueueConsole console) {
        this.page = page;
        this.console = console;
    }

    @ReadOperation(produces = "text/html")
    public WebEndpointResponse<String> page() {
        return new WebEndpointResponse<>(page.html(), WebEndpointResponse.STATUS_OK, HTML);
    }

    /**
     * @param view {@code products}
     * @param filter part of a product id or display-name
     * @param sort {@code waiting} (default) or {@code product}
     * @param page 1-based; default 1
     * @param size products per page, 1 to 100; default 20
     */
    @ReadOperation
    public Mono<WebEndpointResponse<Object>> products(@Selector String view, @Nullable String filter,
            @Nullable String sort, @Nullable Integer page, @Nullable Integer size) {
        if (!PRODUCTS.equals(view)) {
            return Mono.just(new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND));
        }
        return console.page(filter, sort, page == null ? 1 : page, size == null ? 20 : size)
                .map(result -> new WebEndpointResponse<>((Object) result, WebEndpointResponse.STATUS_OK));
    }
}
