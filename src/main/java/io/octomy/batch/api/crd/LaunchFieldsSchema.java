package io.octomy.batch.api.crd;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The types of a BatchJob template's command, args, env and workingDir, added to its otherwise open
 * schema ({@code x-kubernetes-preserve-unknown-fields}): every API server then refuses at apply
 * time an empty item ({@code command: [echo, null]}: array items are not nullable) or a NUL
 * character, which no process can be started with. Everything else in the template stays open.
 */
final class LaunchFieldsSchema {

  /** No NUL character: the operating system takes none in an argument, a variable or a path. */
  static final String NO_NUL = "^[^\\x00]*$";

  private LaunchFieldsSchema() {}

  /** Types the launch fields below {@code template}, in place. */
  static void type(ObjectNode template) {
    ObjectNode pod = open(template.putObject("properties").putObject("spec"));
    pod.put("description", "The pod's spec; its containers' launch fields are typed.");
    ObjectNode containers = pod.putObject("properties").putObject("containers");
    containers.put("type", "array");
    containers.put("description", "The containers; a Process node runs the first one.");
    ObjectNode container = open(containers.putObject("items"));
    ObjectNode fields = container.putObject("properties");
    strings(fields.putObject("command"), "The program and its first arguments.");
    strings(fields.putObject("args"), "Arguments after the command.");
    text(fields.putObject("workingDir"), "The directory the process starts in.");
    ObjectNode env = fields.putObject("env");
    env.put("type", "array");
    env.put("description", "Environment variables, each a name and a value.");
    ObjectNode variable = open(env.putObject("items"));
    ObjectNode variableFields = variable.putObject("properties");
    text(variableFields.putObject("name"), "The variable's name.");
    text(variableFields.putObject("value"), "The variable's value.");
  }

  private static ObjectNode open(ObjectNode schema) {
    schema.put("type", "object");
    schema.put("x-kubernetes-preserve-unknown-fields", true);
    return schema;
  }

  private static void strings(ObjectNode schema, String description) {
    schema.put("type", "array");
    schema.put("description", description);
    schema.putObject("items").put("type", "string").put("pattern", NO_NUL);
  }

  private static void text(ObjectNode schema, String description) {
    schema.put("type", "string");
    schema.put("description", description);
    schema.put("pattern", NO_NUL);
  }
}
