package io.queuegate.web;

/** The JSON body of every QueueGate error: a stable code and a human message. */
public record ErrorBody(String error, String message) {
}
