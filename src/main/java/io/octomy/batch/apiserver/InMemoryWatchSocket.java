package io.octomy.batch.apiserver;

import io.fabric8.kubernetes.client.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A watch of this process's controller or agent ({@link InMemoryHttpClient}): the server side sends
 * event lines into it as into any {@link WatchSink}, and fabric8's WebSocket listener receives each
 * line as a text message, in order, one at a time: the first once open, each next once it asks
 * ({@link #request}), as fabric8's WebSocket clients deliver them.
 *
 * <p>The server sends while the store holds its write lock, so {@link #send} only queues; the
 * messages are handed to the listener on the client's threads, one hand-off at a time per watch.
 * Past the replay, a listener that falls more than the watch buffer behind has its watch ended, as
 * {@link WebSocketWatchSink} ends one whose client does not read; fabric8 then watches again from
 * the last version it saw, or lists again.
 *
 * <p>Closing: the server's {@link #end} delivers what is queued, then a close (1000); the client's
 * {@link #sendClose} drops what is queued, stops the watch on the server and is answered with a
 * close, as a WebSocket peer answers one. Either way the server's close actions run once.
 */
final class InMemoryWatchSocket implements WebSocket, WatchSink {

  private static final Logger LOG = LoggerFactory.getLogger(InMemoryWatchSocket.class);

  private final WebSocket.Listener listener;
  private final Executor handOff;
  private final long bufferBytes;

  // Guarded by this.
  private final ArrayDeque<String> queue = new ArrayDeque<>();
  private final List<Runnable> closeActions = new ArrayList<>();
  private long queuedChars;
  private long replayedChars;
  private long limit = Long.MAX_VALUE;

  /** Messages the listener will take: one at the open, then one more for each request. */
  private long demand = 1;

  private boolean opened;
  private boolean ended;
  private boolean closedByClient;
  private int clientCloseCode;
  private String clientCloseReason;
  private boolean closeDelivered;
  private boolean closeActionsRun;
  private boolean handing;

  InMemoryWatchSocket(WebSocket.Listener listener, Executor handOff, long bufferBytes) {
    this.listener = listener;
    this.handOff = handOff;
    this.bufferBytes = bufferBytes;
  }

  /** Tells the listener the socket is open, before any message. */
  synchronized void open() {
    handOffLocked();
  }

  // --- the server's side (WatchSink) ---

  @Override
  public synchronized void send(String event) {
    if (ended || closedByClient) {
      return;
    }
    if (queuedChars + event.length() > limit) {
      endLocked(); // the client is too far behind: it watches again from where it is
      return;
    }
    queue.add(event);
    queuedChars += event.length();
    if (limit == Long.MAX_VALUE) {
      replayedChars += event.length();
    }
    handOffLocked();
  }

  @Override
  public synchronized void replayDone() {
    limit = replayedChars + bufferBytes;
  }

  @Override
  public synchronized void end() {
    endLocked();
  }

  @Override
  public void onClosed(Runnable action) {
    boolean runNow;
    synchronized (this) {
      runNow = closeActionsRun;
      if (!runNow) {
        closeActions.add(action);
      }
    }
    if (runNow) {
      action.run();
    }
  }

  // --- the client's side (fabric8's WebSocket) ---

  @Override
  public boolean send(ByteBuffer data) {
    return false; // a watch takes no messages from its client
  }

  @Override
  public synchronized boolean sendClose(int code, String reason) {
    if (closedByClient || closeDelivered) {
      return false;
    }
    closedByClient = true;
    clientCloseCode = code;
    clientCloseReason = reason;
    queue.clear();
    queuedChars = 0;
    runCloseActionsLocked();
    handOffLocked();
    return true;
  }

  @Override
  public long queueSize() {
    return 0; // nothing the client sends is ever queued
  }

  @Override
  public synchronized void request() {
    demand++;
    handOffLocked();
  }

  // --- hand-offs, one at a time ---

  private void endLocked() {
    if (ended) {
      return;
    }
    ended = true;
    runCloseActionsLocked();
    handOffLocked();
  }

  private void runCloseActionsLocked() {
    if (closeActionsRun) {
      return;
    }
    closeActionsRun = true;
    List<Runnable> actions = List.copyOf(closeActions);
    closeActions.clear();
    // Not on the caller's thread: the server ends a watch while it holds the store's lock.
    handOffOrDrop(() -> actions.forEach(Runnable::run));
  }

  private void handOffLocked() {
    if (!handing) {
      handing = true;
      if (!handOffOrDrop(this::handOver)) {
        handing = false;
      }
    }
  }

  /** False when the server has stopped its hand-off threads: no one is left to tell. */
  private boolean handOffOrDrop(Runnable task) {
    try {
      handOff.execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  private void handOver() {
    while (true) {
      Runnable step;
      synchronized (this) {
        step = nextStepLocked();
        if (step == null) {
          handing = false;
          return;
        }
      }
      try {
        step.run();
      } catch (RuntimeException e) {
        LOG.debug("a watch listener failed", e);
      }
    }
  }

  /** What the listener is told next, or null when nothing is due (or it has asked for nothing). */
  private Runnable nextStepLocked() {
    if (!opened) {
      opened = true;
      return () -> listener.onOpen(this);
    }
    if (closeDelivered) {
      return null;
    }
    if (closedByClient) {
      closeDelivered = true;
      int code = clientCloseCode;
      String reason = clientCloseReason;
      return () -> listener.onClose(this, code, reason);
    }
    if (!queue.isEmpty() && demand > 0) {
      demand--;
      String message = queue.poll();
      queuedChars -= message.length();
      return () -> listener.onMessage(this, message);
    }
    if (ended && queue.isEmpty()) {
      closeDelivered = true;
      return () -> listener.onClose(this, 1000, "");
    }
    return null;
  }
}
