package io.octomy.batch.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;

/**
 * What no process can be started with: a container's command, args, env or workingDir holding an
 * empty item (null) or a NUL character, or an env name with {@code =}. The operating system takes
 * neither in an argument, a variable or a path, so such a job could never run; the controller
 * rejects it ({@link SpecValidator}) and the agent refuses it rather than fail on it.
 */
public final class LaunchFields {

  private static final String NUL = "\u0000";

  private LaunchFields() {}

  /** Problems of one typed container, as sentences naming the field under {@code path}. */
  public static List<String> problems(Container c, String path) {
    List<String> out = new ArrayList<>();
    if (c == null) {
      return out;
    }
    strings(c.getCommand(), path + ".command", out);
    strings(c.getArgs(), path + ".args", out);
    if (c.getEnv() != null) {
      for (int i = 0; i < c.getEnv().size(); i++) {
        EnvVar v = c.getEnv().get(i);
        String at = path + ".env[" + i + "]";
        if (v == null) {
          out.add(at + " is empty (null); write {name: NAME, value: VALUE} or remove the item");
          continue;
        }
        envName(v.getName(), at, out);
        text(v.getValue(), at + ".value", out);
      }
    }
    text(c.getWorkingDir(), path + ".workingDir", out);
    return out;
  }

  /** Problems of one container as written (a template that could not be read typed). */
  public static List<String> problems(JsonNode c, String path) {
    List<String> out = new ArrayList<>();
    if (c == null || !c.isObject()) {
      return out;
    }
    strings(c.get("command"), path + ".command", out);
    strings(c.get("args"), path + ".args", out);
    JsonNode env = c.get("env");
    if (env != null && env.isArray()) {
      for (int i = 0; i < env.size(); i++) {
        JsonNode v = env.get(i);
        String at = path + ".env[" + i + "]";
        if (!v.isObject()) {
          out.add(
              at
                  + (v.isNull() ? " is empty (null)" : " is not a mapping")
                  + "; write {name: NAME, value: VALUE} or remove the item");
          continue;
        }
        JsonNode name = v.get("name");
        envName(name != null && name.isTextual() ? name.asText() : null, at, out);
        scalar(v.get("value"), at + ".value", out);
      }
    }
    scalar(c.get("workingDir"), path + ".workingDir", out);
    return out;
  }

  private static void strings(List<String> items, String path, List<String> out) {
    if (items == null) {
      return;
    }
    for (int i = 0; i < items.size(); i++) {
      if (items.get(i) == null) {
        out.add(emptyItem(path, i));
      } else {
        text(items.get(i), path + "[" + i + "]", out);
      }
    }
  }

  private static void strings(JsonNode items, String path, List<String> out) {
    if (items == null || !items.isArray()) {
      return;
    }
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      if (item.isNull()) {
        out.add(emptyItem(path, i));
      } else if (!item.isTextual()) {
        out.add(path + "[" + i + "] is not a string; write it in quotes");
      } else {
        text(item.asText(), path + "[" + i + "]", out);
      }
    }
  }

  private static void scalar(JsonNode v, String path, List<String> out) {
    if (v != null && v.isTextual()) {
      text(v.asText(), path, out);
    } else if (v != null && !v.isNull()) {
      out.add(path + " is not a string; write it in quotes");
    }
  }

  private static void envName(String name, String at, List<String> out) {
    if (name == null || name.isEmpty()) {
      out.add(at + " has no name; write {name: NAME, value: VALUE}");
    } else if (name.contains("=")) {
      out.add(at + ".name holds '='; write the name without it, and the value in value");
    } else {
      text(name, at + ".name", out);
    }
  }

  private static void text(String s, String path, List<String> out) {
    if (s != null && s.contains(NUL)) {
      out.add(
          path
              + " holds a NUL character (\\u0000), which no command, variable or path can"
              + " hold; remove it");
    }
  }

  private static String emptyItem(String path, int i) {
    return path + "[" + i + "] is empty (null); write a string, or remove the item";
  }
}
