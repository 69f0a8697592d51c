package io.octomy.batch.apiserver;

import java.util.function.Consumer;

/** A watcher of every event of what it watches, handing each to {@code receiver}. */
record EveryEvent(Consumer<ObjectStore.Event> receiver) implements ObjectStore.Watcher {

  /** Takes every event and does nothing with it. */
  static final EveryEvent IGNORED = new EveryEvent(e -> {});

  @Override
  public boolean matches(ObjectStore.Event event) {
    return true;
  }

  @Override
  public void send(ObjectStore.Event event) {
    receiver.accept(event);
  }
}
