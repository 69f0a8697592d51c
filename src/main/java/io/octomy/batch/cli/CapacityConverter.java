package io.octomy.batch.cli;

import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.Map;
import picocli.CommandLine;

/** {@code --capacity NAME=QTY}: a domain-qualified name and a whole number >= 0. */
public final class CapacityConverter
    implements CommandLine.ITypeConverter<Map.Entry<String, Long>> {

  @Override
  public Map.Entry<String, Long> convert(String value) {
    int eq = value.indexOf('=');
    if (eq < 0) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not NAME=QTY; write it like octomy.io/cpu-milli=8000");
    }
    String name = value.substring(0, eq).trim();
    String qty = value.substring(eq + 1).trim();
    String problem = ResourceNames.problem(name);
    if (problem != null) {
      throw new CommandLine.TypeConversionException(
          name.contains("/") ? problem : problem + "=" + qty);
    }
    long n;
    try {
      n = Long.parseLong(qty);
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException(
          "quantity '"
              + qty
              + "' of "
              + name
              + " is not a whole number; write a whole number >= 0, like "
              + name
              + "=8000");
    }
    if (!Quantities.inRange(n)) {
      throw new CommandLine.TypeConversionException(
          "quantity of "
              + name
              + " is "
              + n
              + "; write a whole number from 0 to "
              + Quantities.MAX);
    }
    return Map.entry(name, n);
  }
}
