package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.time.Clock;

/** A {@link ResourceHandler} over a SQLite store in a test's directory, without a server. */
final class HandlerFixture {

  private HandlerFixture() {}

  /** The store of {@code dir/state.db}, with no custom resources registered. */
  static ObjectStore store(Path dir, ObjectMapper json) {
    SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"));
    return new ObjectStore(json, db, new CommitGuard(json, key -> null), ObjectStore.HISTORY);
  }

  /** A handler over {@code store} with these rules and finalizers for new objects. */
  static ResourceHandler handler(
      ObjectStore store, ObjectMapper json, ObjectRules rules, CreateFinalizers createFinalizers) {
    return handler(store, json, rules, createFinalizers, HeapRoom.ofThisJvm());
  }

  /** A handler as above whose heap reading is {@code room}'s. */
  static ResourceHandler handler(
      ObjectStore store,
      ObjectMapper json,
      ObjectRules rules,
      CreateFinalizers createFinalizers,
      HeapRoom room) {
    CelRules cel = new CelRules();
    Clock clock = Clock.systemUTC();
    return new ResourceHandler(
        store,
        json,
        new ObjectMapper(new YAMLFactory()),
        rules,
        new SchemaValidator(cel),
        cel,
        new TableRenderer(clock),
        new SerializedObjects(json),
        createFinalizers,
        room);
  }
}
