package io.queuegate.web;

import io.queuegate.admission.Refusal;

import org.springframework.http.HttpStatus;

/** The error codes of the HTTP contract, each with its status and usual words. */
public enum QueueError {

    INVALID_TOKEN(HttpStatus.UNAUTHORIZED, "the queue token is missing or not valid"),
    WRONG_PRODUCT(HttpStatus.FORBIDDEN, "the token was issued for another product"),
    WRONG_USER(HttpStatus.FORBIDDEN, "the token belongs to another user"),
    // The leave form: a page of another site must not make a shopper's browser give up the place.
    CROSS_SITE_REQUEST(HttpStatus.FORBIDDEN, "leaving the line by the form must come from the waiting page's own "
            + "origin; other clients leave with DELETE /queue/{productId}"),
    INVALID_PRODUCT(HttpStatus.BAD_REQUEST, "the product id is not valid"),
    UNKNOWN_PRODUCT(HttpStatus.NOT_FOUND, "there is no such product"),
    INVALID_PATH(HttpStatus.BAD_REQUEST, "the path is not written in its one canonical way"),
    NONCANONICAL_PATH(HttpStatus.BAD_REQUEST, "this path is a protected route's path written another way (another "
            + "letter case, a format suffix such as .json, a trailing slash): send it as the route writes it"),
    WEBSOCKET_NOT_ALLOWED(HttpStatus.BAD_REQUEST,
            "this route takes no WebSocket connections through its waiting room: use plain requests"),
    AMBIGUOUS_AUTHORIZATION(HttpStatus.BAD_REQUEST,
            "the request carries more than one Authorization header: send exactly one"),
    AMBIGUOUS_IDENTITY(HttpStatus.BAD_REQUEST, "the identity header names more than one user (it came more than "
            + "once, or holds a comma): the proxy that writes it must replace the one a client sent, not add to it"),
    TOO_MANY_JOINS(HttpStatus.TOO_MANY_REQUESTS,
            "too many joins from this caller; try again later, or keep using the token you were given"),
    TOO_MANY_STREAMS(HttpStatus.TOO_MANY_REQUESTS,
            "too many live streams for this shopper or address; close another tab, or poll the status"),
    COMPLETION_IN_PROGRESS(HttpStatus.CONFLICT,
            "another request of this session is completing it; one admission completes once"),
    SESSION_ENDED(HttpStatus.CONFLICT, "this session has ended (it completed, ran out or was left): "
            + "start again from the product to take a new place"),
    CONTENT_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE, "the request body is too large"),
    QUEUE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE,
            "the waiting room is temporarily unavailable; please try again shortly"),
    QUEUE_MISCONFIGURED(HttpStatus.SERVICE_UNAVAILABLE,
            "this route's waiting room is misconfigured; the operators have been told"),
    QUEUE_CLOSED(HttpStatus.SERVICE_UNAVAILABLE, "this product's queue is closed to new shoppers"),
    ROOM_CLOSED(HttpStatus.SERVICE_UNAVAILABLE, "the waiting room of this product is closed for now"),
    SALE_ENDED(HttpStatus.GONE, "the sale of this product has ended"),
    SOLD_OUT(HttpStatus.GONE, "this product is sold out: stop asking; a place in line is kept should it be restocked"),
    INVITE_REQUIRED(HttpStatus.FORBIDDEN, "this product is open to invited shoppers only: bring your invitation "
            + "(the Queue-Invite header or the invite link)"),
    INVITE_INVALID(HttpStatus.FORBIDDEN, "the invitation is not valid here"),
    INVITE_USED(HttpStatus.FORBIDDEN, "the invitation has been used as many times as it may"),
    // 428, not 401: a 401 makes many mobile apps sign their user out.
    CHALLENGE_REQUIRED(HttpStatus.PRECONDITION_REQUIRED,
            "joining this line takes a solved proof-of-work challenge: solve the one in this answer and "
                    + "join again with the solution in the Queue-Challenge header"),
    CHALLENGE_INVALID(HttpStatus.FORBIDDEN,
            "the Queue-Challenge solution is not valid here: solve the new challenge in this answer"),
    // 409: the solution is genuine, but spent; a fresh challenge in the body resolves the conflict.
    CHALLENGE_USED(HttpStatus.CONFLICT,
            "this proof-of-work solution was used already; each buys one join: solve the new challenge in this answer"),
    TOKEN_BOUND(HttpStatus.FORBIDDEN,
            "this queue token is bound to the network it was issued to (its IPv4 /24 or IPv6 /64), and this "
                    + "request comes from another one (a switch from Wi-Fi to mobile data, or a moving train, "
                    + "does that): go back to that network to keep the place, or join again from this one");

    private final HttpStatus status;
    private final String message;

    QueueError(HttpStatus status, String message) {
        this.status = status;
        this.message = message;
    }

    /** The error the contract answers a refusal with. */
    public static QueueError of(Refusal refusal) {
        return switch (refusal) {
            case INVALID_TOKEN -> INVALID_TOKEN;
            case WRONG_PRODUCT -> WRONG_PRODUCT;
            case WRONG_USER -> WRONG_USER;
            case INVALID_PRODUCT -> INVALID_PRODUCT;
            case UNKNOWN_PRODUCT -> UNKNOWN_PRODUCT;
            case TOO_MANY_JOINS -> TOO_MANY_JOINS;
            case QUEUE_CLOSED -> QUEUE_CLOSED;
            case SALE_ENDED -> SALE_ENDED;
            case SOLD_OUT -> SOLD_OUT;
            case ROOM_CLOSED -> ROOM_CLOSED;
            case COMPLETION_IN_PROGRESS -> COMPLETION_IN_PROGRESS;
            case SESSION_ENDED -> SESSION_ENDED;
            case INVITE_REQUIRED -> INVITE_REQUIRED;
            case INVITE_INVALID -> INVITE_INVALID;
            case INVITE_USED -> INVITE_USED;
            case CHALLENGE_REQUIRED -> CHALLENGE_REQUIRED;
            case CHALLENGE_INVALID -> CHALLENGE_INVALID;
            case CHALLENGE_USED -> CHALLENGE_USED;
            case TOKEN_BOUND -> TOKEN_BOUND;
        };
    }

    public HttpStatus status() {
        return status;
    }

    /** The usual words for this error, when nothing more exact is known. */
    public String message() {
        return message;
    }

    /** The {@code error} field of the JSON body. */
    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
