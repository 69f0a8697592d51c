package io.octomy.batch.apiserver;

import java.util.function.Function;

/**
 * What a field may hold, as far as field names go: the model a request body is read against to find
 * the fields a real API server calls unknown ({@link FieldModels} builds one from a CRD's
 * structural schema or from the model class of a built-in kind). Types are not its concern: a wrong
 * type is the schema validator's answer.
 */
sealed interface FieldModel {

  /** Anything goes below here: a scalar, preserved unknown fields, a free-form value. */
  FieldModel ANY = new Any();

  /**
   * @return the model of field {@code key}, or {@code null} when this model does not know it
   */
  FieldModel field(String key);

  /** The model of a list's items. */
  FieldModel item();

  /** Accepts every field and item. */
  record Any() implements FieldModel {
    @Override
    public FieldModel field(String key) {
      return ANY;
    }

    @Override
    public FieldModel item() {
      return ANY;
    }
  }

  /** An object with named fields; {@code fields} answers {@code null} for an unknown one. */
  record Struct(Function<String, FieldModel> fields) implements FieldModel {
    @Override
    public FieldModel field(String key) {
      return fields.apply(key);
    }

    @Override
    public FieldModel item() {
      return ANY;
    }
  }

  /** A map: every key is allowed, every value has the same model. */
  record MapOf(FieldModel values) implements FieldModel {
    @Override
    public FieldModel field(String key) {
      return values;
    }

    @Override
    public FieldModel item() {
      return ANY;
    }
  }

  /** A list whose items have one model. */
  record ListOf(FieldModel items) implements FieldModel {
    @Override
    public FieldModel field(String key) {
      return ANY;
    }

    @Override
    public FieldModel item() {
      return items;
    }
  }
}
