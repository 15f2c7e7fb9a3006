package io.queuegate.web;

import io.queuegate.challenge.Challenge;

/**
 * The JSON body of a join that must pay a proof of work first: the error, and the challenge to
 * solve ({@code challenge_required}, {@code challenge_invalid}, {@code challenge_used}).
 */
public record ChallengeBody(String error, String message, Challenge challenge) {
}
