package io.queuegate.store;

import io.queuegate.store.script.AdminScript;
import io.queuegate.store.script.DueScript;
import io.queuegate.store.script.EndedScript;
import io.queuegate.store.script.ExpireScript;
import io.queuegate.store.script.GiveBackScript;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.LeaveScript;
import io.queuegate.store.script.MarkDueScript;
import io.queuegate.store.script.PassScript;
import io.queuegate.store.script.PeekScript;
import io.queuegate.store.script.PromoteScript;
import io.queuegate.store.script.RecoverScript;
import io.queuegate.store.script.RescheduleScript;
import io.queuegate.store.script.SeenScript;
import io.queuegate.store.script.SnapshotScript;
import io.queuegate.store.script.StatusScript;
import io.queuegate.store.script.StockScript;
import io.queuegate.store.script.StreamTakeoverScript;
import io.queuegate.store.script.ViewScript;

/**
 * Every script of {@code lua/}, each as the typed adapter that is the only place its arguments
 * are written and its reply is read; built once, so each script's SHA1 is computed once.
 */
public final class QueueScripts {

    private final JoinScript join;
    private final StatusScript status;
    private final PassScript pass;
    private final LeaveScript leave;
    private final ExpireScript expire;
    private final PromoteScript promote;
    private final DueScript due;
    private final AdminScript admin;
    private final SnapshotScript snapshot;
    private final PeekScript peek;
    private final StreamTakeoverScript streamTakeover;
    private final RescheduleScript reschedule;
    private final MarkDueScript markDue;
    private final SeenScript seen;
    private final ViewScript view;
    private final GiveBackScript giveBack;
    private final RecoverScript recover;
    private final StockScript stock;
    private final EndedScript ended;

    public QueueScripts(ScriptRunner runner) {
        this.join = new JoinScript(runner);
        this.status = new StatusScript(runner);
        this.pass = new PassScript(runner);
        this.leave = new LeaveScript(runner);
        this.expire = new ExpireScript(runner);
        this.promote = new PromoteScript(runner);
        this.due = new DueScript(runner);
        this.admin = new AdminScript(runner);
        this.snapshot = new SnapshotScript(runner);
        this.peek = new PeekScript(runner);
        this.streamTakeover = new StreamTakeoverScript(runner);
        this.reschedule = new RescheduleScript(runner);
        this.markDue = new MarkDueScript(runner);
        this.seen = new SeenScript(runner);
        this.view = new ViewScript(runner);
        this.giveBack = new GiveBackScript(runner);
        this.recover = new RecoverScript(runner);
        this.stock = new StockScript(runner);
        this.ended = new EndedScript(runner);
    }

    public JoinScript join() {
        return join;
    }

    public StatusScript status() {
        return status;
    }

    public PassScript pass() {
        return pass;
    }

    public LeaveScript leave() {
        return leave;
    }

    public ExpireScript expire() {
        return expire;
    }

    public PromoteScript promote() {
        return promote;
    }

    public DueScript due() {
        return due;
    }

    public AdminScript admin() {
        return admin;
    }

    public SnapshotScript snapshot() {
        return snapshot;
    }

    public PeekScript peek() {
        return peek;
    }

    public StreamTakeoverScript streamTakeover() {
        return streamTakeover;
    }

    public RescheduleScript reschedule() {
        return reschedule;
    }

    public MarkDueScript markDue() {
        return markDue;
    }

    public SeenScript seen() {
        return seen;
    }

    public ViewScript view() {
        return view;
    }

    public GiveBackScript giveBack() {
        return giveBack;
    }

    public RecoverScript recover() {
        return recover;
    }

    public StockScript stock() {
        return stock;
    }

    public EndedScript ended() {
        return ended;
    }
}
