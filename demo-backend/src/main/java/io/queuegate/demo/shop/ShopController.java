package io.queuegate.demo.shop;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;

import reactor.core.publisher.Mono;

/**
 * The shop's HTTP API. Everything is in memory and non-blocking, so the handlers return plain values.
 * Every answer about one product's stock (its page, an order placed or refused as sold out) says
 * the units left in {@value #STOCK_HEADER}, so QueueGate's line knows the stock and admits nobody
 * beyond it; the gateway keeps the header to itself. A browser gets the product as a page with a
 * "buy one" form ({@link ShopPages}), which orders without JavaScript; every other client, JSON.
 */
@RestController
@RequestMapping("/api/products")
public class ShopController {

    static final String USER_ID_HEADER = "X-User-Id";

    /** The units a product has left, for the gateway in front (QueueGate's "the line knows the stock"). */
    static final String STOCK_HEADER = "Queue-Stock";

    private static final int MIN_QUANTITY = 1;
    private static final int MAX_QUANTITY = 10;

    /** The shop's own pages may load only its style sheet and logo, and post only to itself. */
    private static final String PAGE_POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; "
            + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

    private final Map<String, Listing> listings;
    private final AtomicLong lastOrderId = new AtomicLong();
    private final ShopPages pages = new ShopPages();

    public ShopController(ShopProperties properties) {
        // insertion order, so that the list endpoint shows the catalogue as configured
        Map<String, Listing> byId = new LinkedHashMap<>();
        for (ShopProperties.Product product : properties.products()) {
            if (byId.putIfAbsent(product.id(), new Listing(product, new Stock(product.stock()))) != null) {
                throw new IllegalArgumentException("Duplicate product id in shop.products: " + product.id());
            }
        }
        this.listings = Collections.unmodifiableMap(byId);
    }

    @GetMapping
    public List<ProductView> products() {
        return listings.values().stream().map(Listing::view).toList();
    }

    @GetMapping("/{id}")
    public ResponseEntity<?> product(@PathVariable String id, ServerHttpRequest request) {
        ProductView view = listing(id).view();
        ResponseEntity.BodyBuilder answer = ResponseEntity.ok().header(STOCK_HEADER, Integer.toString(view.stock()));
        if (ShopPages.wantsPage(request)) {
            return page(answer, pages.product(view, ShopPages.language(request)));
        }
        return answer.body(view);
    }

    /** The product page's "buy one" form: the order, answered with a page that says it is placed. */
    @PostMapping(value = "/{id}/orders", consumes = MediaType.APPLICATION_FORM_URLENCODED_VALUE)
    public Mono<ResponseEntity<String>> orderByForm(@PathVariable String id, ServerWebExchange exchange,
            @RequestHeader(name = USER_ID_HEADER, required = false) String userId) {
        String language = ShopPages.language(exchange.getRequest());
        return exchange.getFormData().map(form -> {
            Integer quantity;
            try {
                String given = form.getFirst("quantity");
                quantity = given == null || given.isBlank() ? null : Integer.valueOf(given.strip());
            }
            catch (NumberFormatException notANumber) {
                quantity = 0;
            }
            try {
                ResponseEntity<OrderView> placed = order(id, new OrderRequest(quantity), userId);
                return page(ResponseEntity.status(placed.getStatusCode()).headers(placed.getHeaders()),
                        pages.ordered(placed.getBody(), listing(id).product().name(), language));
            }
            catch (ShopException refused) {
                ResponseEntity.BodyBuilder answer = ResponseEntity.status(refused.status);
                if (refused.unitsLeft != null) {
                    answer.header(STOCK_HEADER, Integer.toString(refused.unitsLeft));
                }
                return page(answer, pages.refused(refused.getMessage(), language));
            }
        });
    }

    private static ResponseEntity<String> page(ResponseEntity.BodyBuilder answer, String html) {
        return answer.contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .header("Content-Security-Policy", PAGE_POLICY).header("Cache-Control", "no-store").body(html);
    }

    @PostMapping("/{id}/orders")
    public ResponseEntity<OrderView> order(@PathVariable String id,
                           @RequestBody(required = false) OrderRequest request,
                           @RequestHeader(name = USER_ID_HEADER, required = false) String userId) {
        Listing listing = listing(id);
        int quantity = request == null || request.quantity() == null ? MIN_QUANTITY : request.quantity();
        if (quantity < MIN_QUANTITY || quantity > MAX_QUANTITY) {
            throw new ShopException(HttpStatus.BAD_REQUEST, "invalid_quantity",
                    "Quantity must be between " + MIN_QUANTITY + " and " + MAX_QUANTITY + ", was " + quantity);
        }
        int remaining = listing.stock().tryTake(quantity).orElseThrow(() -> new ShopException(HttpStatus.CONFLICT,
                "sold_out", "Not enough stock left for product " + id + " to order " + quantity,
                listing.stock().remaining()));
        return ResponseEntity.status(HttpStatus.CREATED).header(STOCK_HEADER, Integer.toString(remaining))
                .body(new OrderView(lastOrderId.incrementAndGet(), id, quantity, remaining, userId));
    }

    @ExceptionHandler
    public ResponseEntity<ApiError> shopError(ShopException e) {
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(e.status);
        if (e.unitsLeft != null) {
            answer.header(STOCK_HEADER, Integer.toString(e.unitsLeft));
        }
        return answer.body(new ApiError(e.error, e.getMessage()));
    }

    // keep the error body in the shop's own shape when the order body is not readable JSON
    @ExceptionHandler
    public ResponseEntity<ApiError> unreadableRequest(ServerWebInputException e) {
        return ResponseEntity.badRequest().body(new ApiError("invalid_request", e.getReason()));
    }

    private Listing listing(String id) {
        Listing listing = listings.get(id);
        if (listing == null) {
            throw new ShopException(HttpStatus.NOT_FOUND, "not_found", "No product with id " + id);
        }
        return listing;
    }

    private record Listing(ShopProperties.Product product, Stock stock) {

        ProductView view() {
            return new ProductView(product.id(), product.name(), product.price(), stock.remaining());
        }
    }

    /** The order body; {@code quantity} is nullable so that an empty object means the default of one. */
    public record OrderRequest(Integer quantity) {
    }

    public record ProductView(String id, String name, long price, int stock) {
    }

    public record OrderView(long orderId, String productId, int quantity, int remaining, String userId) {
    }

    public record ApiError(String error, String message) {
    }

    static final class ShopException extends RuntimeException {

        private final HttpStatus status;
        private final String error;
        /** The units the product has left, said with the refusal; null when no product is known. */
        private final Integer unitsLeft;

        ShopException(HttpStatus status, String error, String message) {
            this(status, error, message, null);
        }

        ShopException(HttpStatus status, String error, String message, Integer unitsLeft) {
            // no stack trace: sold out is the expected answer for most orders during a flash sale
            super(message, null, false, false);
            this.status = status;
            this.error = error;
            this.unitsLeft = unitsLeft;
        }
    }
}
