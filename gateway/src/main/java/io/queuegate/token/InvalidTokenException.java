package io.queuegate.token;

/** A presented token that cannot be trusted; its message is safe to show the caller. */
public class InvalidTokenException extends RuntimeException {

    public InvalidTokenException(String message) {
        super(message, null, false, false);
    }
}
