package io.queuegate.web;

import org.springframework.http.HttpStatus;

/** The error codes of the HTTP contract, each with its status. */
public enum QueueError {

    INVALID_TOKEN(HttpStatus.UNAUTHORIZED),
    WRONG_PRODUCT(HttpStatus.FORBIDDEN),
    WRONG_USER(HttpStatus.FORBIDDEN),
    INVALID_PRODUCT(HttpStatus.BAD_REQUEST),
    INVALID_PATH(HttpStatus.BAD_REQUEST),
    TOO_MANY_JOINS(HttpStatus.TOO_MANY_REQUESTS),
    TOO_MANY_STREAMS(HttpStatus.TOO_MANY_REQUESTS),
    COMPLETION_IN_PROGRESS(HttpStatus.CONFLICT),
    CONTENT_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE),
    QUEUE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE),
    QUEUE_CLOSED(HttpStatus.SERVICE_UNAVAILABLE),
    ROOM_CLOSED(HttpStatus.SERVICE_UNAVAILABLE),
    SALE_ENDED(HttpStatus.GONE);

    private final HttpStatus status;

    QueueError(HttpStatus status) {
        this.status = status;
    }

    public HttpStatus status() {
        return status;
    }

    /** The {@code error} field of the JSON body. */
    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
