package io.octomy.batch.apiserver;

import com.sun.management.UnixOperatingSystemMXBean;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.impl.TCPServerBase;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cap on the connections the HTTPS side holds, below the process's file descriptor limit: a
 * connection past it is closed as it is accepted, before its TLS handshake, so a flood of
 * connections (authenticated or not) can never take the descriptors the store, the agent and its
 * jobs need. The cap is half the descriptors free when the server starts; a refusal is logged at
 * most once a minute.
 *
 * <p>It sits in the listening channel's pipeline, ahead of the handler that sets up each accepted
 * connection: Vert.x counts a connection only after its handshake, too late for a flood that never
 * sends one, and offers no hook before, so the channel is taken from its server by reflection.
 */
@ChannelHandler.Sharable
final class ConnectionCap extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionCap.class);
  private static final long LOG_EVERY = Duration.ofMinutes(1).toNanos();

  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_EVERY);

  ConnectionCap(int max) {
    this.max = max;
  }

  /** Half the descriptors this process has free now, at least 16; unlimited when unknown. */
  static int forThisProcess() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof UnixOperatingSystemMXBean unix) {
      long free = unix.getMaxFileDescriptorCount() - unix.getOpenFileDescriptorCount();
      return (int) Math.max(16, Math.min(Integer.MAX_VALUE, free / 2));
    }
    return Integer.MAX_VALUE;
  }

  /** Puts the cap in front of a listening server; without the hook, says so and serves uncapped. */
  void install(HttpServer server) {
    try {
      Field actual = TCPServerBase.class.getDeclaredField("actualServer");
      Field bound = TCPServerBase.class.getDeclaredField("bindFuture");
      actual.setAccessible(true);
      bound.setAccessible(true);
      Object listening = actual.get(server);
      @SuppressWarnings("unchecked")
      Future<Channel> channel = (Future<Channel>) bound.get(listening == null ? server : listening);
      channel.result().pipeline().addFirst("octomy-connection-cap", this);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "connections are not capped (this Vert.x has no listening channel to hook): {}",
          e.toString());
    }
  }

  int max() {
    return max;
  }

  int open() {
    return open.get();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Channel child) {
      if (open.incrementAndGet() > max) {
        open.decrementAndGet();
        // as Netty's own acceptor drops a connection it cannot set up: before it is registered
        child.unsafe().closeForcibly();
        refusedOne();
        return;
      }
      child.closeFuture().addListener(f -> open.decrementAndGet());
    }
    ctx.fireChannelRead(msg);
  }

  private void refusedOne() {
    long n = refused.incrementAndGet();
    long now = System.nanoTime();
    long last = lastLog.get();
    if (now - last >= LOG_EVERY && lastLog.compareAndSet(last, now)) {
      LOG.warn(
          "refusing new connections: {} are open, the most this server holds ({} refused so far;"
              + " half the file descriptors free at start, so that a connection flood cannot take"
              + " those the store and jobs need)",
          max,
          n);
    }
  }
}
