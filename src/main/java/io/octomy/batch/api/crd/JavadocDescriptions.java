package io.octomy.batch.api.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.javaparser.JavaParser;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.body.FieldDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.javadoc.Javadoc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Build time: the Javadoc of the API types becomes the CRD's descriptions. The CRD generator works
 * from compiled classes, where Javadoc is gone, so this reads the sources: a class's Javadoc
 * describes the schema node of that class, a field's Javadoc the property of that name.
 */
final class JavadocDescriptions {

  private static final JavaParser PARSER =
      new JavaParser(
          new ParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17));

  private final Path sourceRoot;
  private final Map<Class<?>, Docs> cache = new HashMap<>();

  /** The Javadoc of one class and of its fields, as single-line text. */
  private record Docs(Optional<String> type, Map<String, String> fields) {}

  JavadocDescriptions(Path sourceRoot) {
    this.sourceRoot = sourceRoot;
  }

  /**
   * Sets the description of {@code schema} (the schema of {@code type}) and, recursively, of its
   * properties.
   */
  void describe(ObjectNode schema, Class<?> type) {
    Docs docs = docs(type);
    if (docs == null) {
      return; // not one of ours: fabric8 and JDK types keep what the generator wrote
    }
    docs.type().ifPresent(d -> schema.put("description", d));
    JsonNode properties = schema.path("properties");
    for (Field f : allFields(type)) {
      if (Modifier.isStatic(f.getModifiers())
          || !(properties.get(f.getName()) instanceof ObjectNode property)) {
        continue;
      }
      String d = docs.fields().get(f.getName());
      if (d != null) {
        property.put("description", d);
      }
      nested(property, resolve(type, f));
    }
  }

  /**
   * A CustomResource's {@code spec} and {@code status} are type variables: resolve them to the
   * kind's arguments.
   */
  private static Type resolve(Class<?> owner, Field f) {
    Type t = f.getGenericType();
    if (t instanceof TypeVariable<?> v
        && owner.getGenericSuperclass() instanceof ParameterizedType p) {
      TypeVariable<?>[] params = ((Class<?>) p.getRawType()).getTypeParameters();
      for (int i = 0; i < params.length; i++) {
        if (params[i].getName().equals(v.getName())) {
          return p.getActualTypeArguments()[i];
        }
      }
    }
    return t;
  }

  private void nested(ObjectNode property, Type t) {
    if (t instanceof Class<?> c && docs(c) != null) {
      Docs own = docs(c);
      String fieldDoc = property.path("description").asText(null);
      describe(property, c);
      if (fieldDoc != null) {
        property.put(
            "description",
            fieldDoc); // the field says what it is here; the type's doc is for its own node
      } else {
        own.type().ifPresent(d -> property.put("description", d));
      }
    } else if (t instanceof ParameterizedType p) {
      Type[] args = p.getActualTypeArguments();
      Class<?> raw = (Class<?>) p.getRawType();
      if (List.class.isAssignableFrom(raw) && property.get("items") instanceof ObjectNode items) {
        nestedType(items, args[0]);
      } else if (Map.class.isAssignableFrom(raw)
          && property.get("additionalProperties") instanceof ObjectNode values) {
        nestedType(values, args[1]);
      }
    }
  }

  private void nestedType(ObjectNode schema, Type t) {
    if (t instanceof Class<?> c && docs(c) != null) {
      describe(schema, c);
    }
  }

  private static List<Field> allFields(Class<?> type) {
    List<Field> out = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      out.addAll(List.of(c.getDeclaredFields()));
    }
    return out;
  }

  /** The Javadoc of a class of ours, read from its source file; null for other classes. */
  private Docs docs(Class<?> type) {
    if (!type.getName().startsWith("io.octomy.")) {
      return null;
    }
    return cache.computeIfAbsent(type, this::read);
  }

  private Docs read(Class<?> type) {
    Path file = sourceRoot.resolve(type.getName().replace('.', '/') + ".java");
    if (!Files.exists(file)) {
      return new Docs(Optional.empty(), Map.of());
    }
    CompilationUnit unit;
    try {
      unit =
          PARSER
              .parse(file)
              .getResult()
              .orElseThrow(() -> new IllegalStateException("cannot parse " + file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Optional<TypeDeclaration<?>> found =
        unit.getTypes().stream()
            .filter(t -> t.getNameAsString().equals(type.getSimpleName()))
            .findFirst();
    if (found.isEmpty()) {
      return new Docs(Optional.empty(), Map.of());
    }
    TypeDeclaration<?> decl = found.get();
    Map<String, String> fields = new HashMap<>();
    for (FieldDeclaration f : decl.getFields()) {
      f.getJavadoc()
          .ifPresent(j -> f.getVariables().forEach(v -> fields.put(v.getNameAsString(), text(j))));
    }
    return new Docs(decl.getJavadoc().map(JavadocDescriptions::text), fields);
  }

  /** The Javadoc's description as one line; inline tags like {@code x} keep their content only. */
  private static String text(Javadoc doc) {
    return doc.getDescription()
        .toText()
        .replaceAll("\\{@(?:code|link|literal) ([^}]*)}", "$1")
        .replaceAll("\\s+", " ")
        .trim();
  }
}
