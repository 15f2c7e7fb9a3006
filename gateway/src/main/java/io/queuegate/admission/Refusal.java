package io.queuegate.admission;

/**
 * Why a request is refused, in the waiting room's own terms; the web layer alone turns a refusal
 * into a status, an error code and a message.
 */
public enum Refusal {

    /** The token is malformed, forged, expired, ambiguous, or missing where one is needed. */
    INVALID_TOKEN,
    /** An explicit token for another product. */
    WRONG_PRODUCT,
    /** An explicit token of another shopper, or a signed-in shopper's place without their identity. */
    WRONG_USER,
    /** The product id is not one (characters, length, the route's product-id-pattern). */
    INVALID_PRODUCT,
    /** The product id is not one of {@code queuegate.products}, and the gateway refuses unknown products. */
    UNKNOWN_PRODUCT,
    /** The caller joined too often in the window. */
    TOO_MANY_JOINS,
    /** An operator drains the product: nobody new joins. */
    QUEUE_CLOSED,
    /** The sale's closes-at has passed: nobody new joins. */
    SALE_ENDED,
    /** An operator closed the room. */
    ROOM_CLOSED,
    /** The product's stock is gone: nobody new is admitted, and a place in line is kept until a restock. */
    SOLD_OUT,
    /** Another request of the session is completing it. */
    COMPLETION_IN_PROGRESS,
    /** A completing request of a shopper who holds no session any more: a completion never makes one. */
    SESSION_ENDED,
    /** A new place needs an invitation, and the request brought none. */
    INVITE_REQUIRED,
    /** The invitation the request brought is refused: forged, expired, malformed, another product's or shopper's. */
    INVITE_INVALID,
    /** The invitation has made all the places it may for this product. */
    INVITE_USED,
    /** A join without a solution of the product's proof of work. */
    CHALLENGE_REQUIRED,
    /** A join whose proof-of-work solution is forged, expired, for another product or malformed. */
    CHALLENGE_INVALID,
    /** A join whose proof-of-work solution was used before, on this instance or another. */
    CHALLENGE_USED,
    /** A token bound to another network than the one it is presented from, or unbound where binding is required. */
    TOKEN_BOUND
}
