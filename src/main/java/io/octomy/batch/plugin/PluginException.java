package io.octomy.batch.plugin;

/** What the plugin prints on standard error before exiting with 1: a whole sentence. */
final class PluginException extends RuntimeException {
  PluginException(String message) {
    super(message);
  }
}
