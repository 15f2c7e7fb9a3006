package io.queuegate.config;

/** What a protected route does with a request to upgrade to a WebSocket. */
public enum WebSocketUpgrade {

    /**
     * Answers {@code 400 websocket_not_allowed} before any queue work (the default): a connection
     * held open would outlive the session that let it in.
     */
    REFUSE,

    /**
     * Admits it as any request (queued while the caller waits), and closes the proxied connection
     * when the caller's session ends.
     */
    ALLOW
}
