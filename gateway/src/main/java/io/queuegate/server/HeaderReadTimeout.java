package io.queuegate.server;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;

import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * Closes a connection whose request line and headers take longer than a deadline to arrive, from
 * the first byte of the request. Reactor Netty's idle timeout is reset by every byte, so a client
 * that sends a header a byte at a time (slowloris) would hold the connection forever; its read and
 * request timeouts only start once the headers are in. The idle time between keep-alive requests
 * stays with {@code server.netty.idle-timeout}.
 *
 * <p>Two handlers share one deadline per connection: one before the HTTP codec sees the first
 * bytes of a request and starts the clock, one after it sees the decoded request head and marks
 * the head as in (the timer, if pending, then lapses). HTTP/2 connections are left as they are.
 */
public final class HeaderReadTimeout implements NettyServerCustomizer {

    private static final String START = "queuegate.headerReadTimeout.start";
    private static final String STOP = "queuegate.headerReadTimeout.stop";

    private final long timeoutMillis;

    public HeaderReadTimeout(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
    }

    @Override
    public HttpServer apply(HttpServer server) {
        // 0 (a runnable gateway's setting overridden to none) adds nothing to the server.
        return timeoutMillis <= 0 ? server : server.doOnChannelInit((observer, channel, remote) -> install(channel));
    }

    void install(Channel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        if (pipeline.get(NettyPipeline.HttpCodec) == null) {
            return;
        }
        Deadline deadline = new Deadline(timeoutMillis);
        pipeline.addBefore(NettyPipeline.HttpCodec, START, deadline.start);
        pipeline.addAfter(NettyPipeline.HttpCodec, STOP, deadline.stop);
    }

    /** Where a connection is in reading its current request. */
    private enum State {
        /** Between requests: the next byte starts a request head. */
        IDLE,
        /** The request line and headers are arriving, against the deadline. */
        HEAD,
        /** The head is in; the body (if any) is arriving. */
        BODY
    }

    /**
     * One connection's deadline; touched only on its event loop. A kept-alive connection carries
     * many requests a second, so the deadline is not a timer per request (scheduled and cancelled
     * each time): one timer at a time per connection, armed when a head starts and none is pending.
     * When it fires it closes a head that is late, waits on for a head that started since, and
     * otherwise lapses until the next head starts.
     */
    private static final class Deadline {

        private final long timeoutNanos;
        private State state = State.IDLE;
        private long headStartedAt;
        private ScheduledFuture<?> timer;

        final ChannelInboundHandlerAdapter start = new ChannelInboundHandlerAdapter() {

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
                if (state == State.IDLE && msg instanceof ByteBuf bytes && bytes.isReadable()) {
                    state = State.HEAD;
                    headStartedAt = System.nanoTime();
                    if (timer == null) {
                        arm(ctx, timeoutNanos);
                    }
                }
                super.channelRead(ctx, msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) throws Exception {
                if (timer != null) {
                    timer.cancel(false);
                    timer = null;
                }
                super.channelInactive(ctx);
            }
        };

        final ChannelInboundHandlerAdapter stop = new ChannelInboundHandlerAdapter() {

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
                if (msg instanceof HttpRequest) {
                    state = msg instanceof LastHttpContent ? State.IDLE : State.BODY;
                }
                else if (msg instanceof LastHttpContent) {
                    state = State.IDLE;
                }
                super.channelRead(ctx, msg);
            }
        };

        Deadline(long timeoutMillis) {
            this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        }

        private void arm(ChannelHandlerContext ctx, long delayNanos) {
            timer = ctx.executor().schedule(() -> expire(ctx), delayNanos, TimeUnit.NANOSECONDS);
        }

        private void expire(ChannelHandlerContext ctx) {
            timer = null;
            if (state != State.HEAD) {
                return;
            }
            long left = timeoutNanos - (System.nanoTime() - headStartedAt);
            if (left <= 0) {
                ctx.channel().close();
            }
            else {
                arm(ctx, left);
            }
        }
    }
}
