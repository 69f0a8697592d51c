package io.octomy.batch.policy;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.octomy.batch.vocabulary.GroupPolicy;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads the policy YAML. Every key is optional and falls back to the defaults; unknown keys and bad
 * values fail with the line and the field, so a broken policy stops start-up instead of being
 * half-applied. A mode row written in the file overrides the default row name by name (names it
 * does not mention keep their default percentage).
 */
public final class PolicyLoader {

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(new YAMLFactory())
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .build();

  private PolicyLoader() {}

  public static Policy load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new PolicyException("cannot read policy file " + file + ": " + e.getMessage(), e);
    }
    return parse(text, file.toString());
  }

  /** Parses policy YAML; {@code source} names the file in error messages. */
  public static Policy parse(String yaml, String source) {
    if (yaml.isBlank()) {
      return Policy.defaults();
    }
    PolicyFile f;
    try {
      f = MAPPER.readValue(yaml, PolicyFile.class);
    } catch (JsonProcessingException e) {
      throw new PolicyException(describe(e, source, yaml), e);
    }
    return f == null ? Policy.defaults() : toPolicy(f, source);
  }

  private static Policy toPolicy(PolicyFile f, String source) {
    Policy d = Policy.defaults();
    ModeTable modes = d.modes();
    if (f.modes != null) {
      if (f.modes.containsKey(NodeMode.Off)) {
        // Off is the owner taking the machine back: a row could only suggest otherwise
        throw new PolicyException(
            "policy "
                + source
                + ", field modes.Off: an Off node offers nothing, whatever its row says; remove"
                + " the Off row, and give offers in the Interactive, Background or Drone rows",
            null);
      }
      Map<NodeMode, Map<String, Integer>> rows = new EnumMap<>(NodeMode.class);
      f.modes.forEach(
          (mode, row) -> {
            Map<String, Integer> merged =
                new LinkedHashMap<>(d.modes().rows().getOrDefault(mode, Map.of()));
            if (row != null) {
              row.forEach((k, p) -> merged.put(k.value(), p.value()));
            }
            rows.put(mode, merged);
          });
      modes = modes.with(rows);
    }
    PriorityPolicy p = d.priority();
    if (f.priority != null) {
      PolicyFile.PriorityFile pf = f.priority;
      p =
          new PriorityPolicy(
              pf.guaranteed != null ? pf.guaranteed.value() : p.guaranteed(),
              pf.burstable != null ? pf.burstable.value() : p.burstable(),
              pf.bestEffort != null ? pf.bestEffort.value() : p.bestEffort(),
              pf.agingPerMinute != null ? pf.agingPerMinute.value() : p.agingPerMinute(),
              pf.agingCeiling != null ? pf.agingCeiling.value() : p.agingCeiling(),
              pf.starvationAfter != null ? pf.starvationAfter.value() : p.starvationAfter(),
              pf.fairShareWeight != null ? pf.fairShareWeight.value() : p.fairShareWeight());
    }
    Map<String, GroupPolicy> groups = new HashMap<>();
    if (f.groups != null) {
      f.groups.forEach(
          (name, g) ->
              groups.put(
                  name.value(),
                  g == null || g.maxRunning == null
                      ? GroupPolicy.DEFAULT
                      : new GroupPolicy(g.maxRunning.value())));
    }
    Map<String, Map<String, Long>> budgets = new HashMap<>();
    if (f.budgets != null) {
      f.budgets.forEach(
          (ns, b) ->
              budgets.put(
                  ns.value(),
                  b == null
                      ? Map.of()
                      : b.entrySet().stream()
                          .collect(
                              Collectors.toMap(
                                  e -> e.getKey().value(), e -> e.getValue().value()))));
    }
    return new Policy(
        modes,
        p,
        groups,
        budgets,
        f.nodeHeartbeatTimeout != null ? f.nodeHeartbeatTimeout.value() : d.nodeHeartbeatTimeout(),
        f.fairShare != null && f.fairShare.usageHalfLife != null
            ? f.fairShare.usageHalfLife.value()
            : d.usageHalfLife(),
        f.finishedJobTTL != null ? f.finishedJobTTL.value() : d.finishedJobTTL(),
        f.retryBackoff != null ? f.retryBackoff.value() : d.retryBackoff());
  }

  /** "policy.yaml line 4, field priority.agingPerMinute: 0.5 is a fraction; ..." */
  private static String describe(JsonProcessingException e, String source, String yaml) {
    // The parser's current token is where the bad value or key starts; e.getLocation() can point
    // past it.
    JsonParser parser = e.getProcessor() instanceof JsonParser jp ? jp : null;
    JsonLocation loc = parser != null ? parser.currentTokenLocation() : e.getLocation();
    String line = loc != null && loc.getLineNr() > 0 ? " line " + loc.getLineNr() : "";
    String field = "";
    String what;
    if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
      field = ", field " + path(m);
    }
    if (e instanceof UnrecognizedPropertyException u) {
      what =
          "'"
              + u.getPropertyName()
              + "' is not a policy key; the keys here are "
              + u.getKnownPropertyIds().stream()
                  .map(Object::toString)
                  .sorted()
                  .collect(Collectors.joining(", "));
    } else if ((what = keyProblem(e)) != null) {
      // a map key refused in its type's own words
    } else if (rootCause(e) instanceof IllegalArgumentException iae) {
      what = iae.getMessage();
    } else if (parser != null && parser.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
      what = "a fraction is not allowed here; write a whole number";
    } else if (e instanceof InvalidFormatException f && f.getTargetType().isEnum()) {
      what =
          "'" + f.getValue() + "' is not a mode; write one of Interactive, Background, Drone, Off";
    } else if ((what = expected(e, yaml, loc)) != null) {
      // a value of the wrong shape, quoted as written
    } else {
      what = firstLine(e.getOriginalMessage());
    }
    return "policy " + source + line + field + ": " + what;
  }

  /**
   * Why a map key was refused, in the key type's own words: Jackson keeps only the text of a key
   * creator's exception, wrapped in its own, not the exception.
   */
  private static String keyProblem(JsonProcessingException e) {
    if (!(e instanceof InvalidFormatException f) || !(f.getValue() instanceof String key)) {
      return null;
    }
    try {
      if (f.getTargetType() == PolicyFile.ResourceName.class) {
        PolicyFile.ResourceName.of(key);
      } else if (f.getTargetType() == PolicyFile.RowKey.class) {
        PolicyFile.RowKey.of(key);
      } else if (f.getTargetType() == PolicyFile.Label.class) {
        PolicyFile.Label.of(key);
      }
      return null;
    } catch (IllegalArgumentException refused) {
      return refused.getMessage();
    }
  }

  /** What to write instead of a value of the wrong shape, or null when the type says nothing. */
  private static String expected(JsonProcessingException e, String yaml, JsonLocation loc) {
    Class<?> target = e instanceof MismatchedInputException mi ? mi.getTargetType() : null;
    if (target == null) {
      return null;
    }
    String value = written(yaml, loc);
    if (target == PolicyFile.Timeout.class || target == PolicyFile.GoText.class) {
      return value + " is not a duration; write one like 90s, 5m or 1h30m";
    }
    if (target == PolicyFile.Percent.class
        || target == PolicyFile.Quantity.class
        || target == PolicyFile.PriorityNumber.class
        || target == PolicyFile.Cap.class
        || Number.class.isAssignableFrom(target)
        || target == int.class
        || target == long.class) {
      return value + " is not a number; write a whole number";
    }
    if (Map.class.isAssignableFrom(target)
        || target == PolicyFile.class
        || target == PolicyFile.PriorityFile.class
        || target == PolicyFile.GroupFile.class) {
      return value + " is not a mapping; write keys and values under it (key: value)";
    }
    return null;
  }

  /**
   * The value as written at {@code loc} (a scalar up to the next comma, bracket or comment on its
   * line), quoted; "this value" when it cannot be told.
   */
  private static String written(String yaml, JsonLocation loc) {
    if (loc == null || loc.getLineNr() < 1 || loc.getColumnNr() < 1) {
      return "this value";
    }
    String[] lines = yaml.split("\n", -1);
    if (loc.getLineNr() > lines.length) {
      return "this value";
    }
    String line = lines[loc.getLineNr() - 1];
    if (loc.getColumnNr() > line.length()) {
      return "this value";
    }
    String rest = line.substring(loc.getColumnNr() - 1);
    if (rest.startsWith("[") || rest.startsWith("- ")) {
      return "a list";
    }
    int end = rest.length();
    for (char stop : new char[] {',', '}', ']', '#'}) {
      int i = rest.indexOf(stop);
      if (i >= 0 && i < end) {
        end = i;
      }
    }
    String value = rest.substring(0, end).trim();
    return value.isEmpty() ? "this value" : "'" + value + "'";
  }

  private static String path(JsonMappingException m) {
    StringBuilder b = new StringBuilder();
    for (JsonMappingException.Reference r : m.getPath()) {
      if (r.getFieldName() != null) {
        if (b.length() > 0) {
          b.append('.');
        }
        b.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        b.append('[').append(r.getIndex()).append(']');
      }
    }
    return b.toString();
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable value";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
