package io.queuegate.store.script;

import io.queuegate.store.AdminAction;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code admin.lua}: an operator's change to one product, for every instance at once. */
public final class AdminScript extends ProductScript {

    public AdminScript(ScriptRunner runner) {
        super(runner, "admin.lua");
    }

    /**
     * @param value the new max-active for {@link AdminAction#MAX} ("" = back to the route's), the
     *              room mode's code for {@link AdminAction#MODE}, else ""
     * @return users admitted by the change
     */
    public Mono<Long> run(String productId, AdminAction action, String value, long now) {
        return fields(productId, action.code(), value, Long.toString(now)).map(reply -> reply.number("promoted"));
    }
}
