package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.function.Function;

/**
 * How server-side apply sees a value (structured-merge-diff's schema): what is owned as a whole and
 * what field by field, and how list items are told apart. {@link FieldShapes} builds one from a
 * CRD's schema or a built-in kind's model.
 */
sealed interface FieldShape {

  /**
   * A value of no declared type (below {@code x-kubernetes-preserve-unknown-fields}): an object is
   * a map owned key by key, a list is owned as a whole.
   */
  FieldShape DEDUCED = new Deduced();

  FieldShape SCALAR = new Scalar();

  /** Owned as a whole. */
  record Scalar() implements FieldShape {}

  /** See {@link #DEDUCED}. */
  record Deduced() implements FieldShape {}

  /**
   * An object: a struct's declared fields ({@code declared} answers {@code null} for others), a
   * map's entries ({@code others}, {@code null} when only declared fields are allowed), or both.
   *
   * @param atomic {@code x-kubernetes-map-type: atomic}: owned as a whole
   */
  record Fields(Function<String, FieldShape> declared, FieldShape others, boolean atomic)
      implements FieldShape {

    /** The shape of field {@code key}, and whether it is a declared (named) field. */
    FieldShape field(String key) {
      FieldShape named = declared.apply(key);
      if (named != null) {
        return named;
      }
      return others == null ? DEDUCED : others;
    }

    boolean isDeclared(String key) {
      return declared.apply(key) != null;
    }
  }

  /**
   * A list.
   *
   * @param kind atomic (the default for custom resources), a set of scalars, or a map keyed by
   *     {@code keys}
   */
  record Items(FieldShape item, ListKind kind, List<String> keys) implements FieldShape {}

  enum ListKind {
    ATOMIC,
    SET,
    MAP
  }

  /** The shape of a value of this shape, with a deduced shape resolved by the value itself. */
  static FieldShape resolve(FieldShape shape, JsonNode value) {
    if (!(shape instanceof Deduced)) {
      return shape;
    }
    if (value != null && value.isObject()) {
      return new Fields(k -> null, DEDUCED, false);
    }
    if (value != null && value.isArray()) {
      return new Items(DEDUCED, ListKind.ATOMIC, List.of());
    }
    return SCALAR;
  }

  /** Whether a value of this shape is owned as a whole (no field of it is owned apart). */
  static boolean isLeaf(FieldShape shape) {
    return shape instanceof Scalar
        || (shape instanceof Fields f && f.atomic())
        || (shape instanceof Items i && i.kind() == ListKind.ATOMIC);
  }
}
