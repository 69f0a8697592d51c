package io.octomy.batch.api;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.AnnotatedMethod;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Copies, compares and hashes an API object property by property, over the properties its JSON has
 * (as Jackson reads and writes them), so no list of fields is kept by hand: a new status field with
 * its getter and setter is copied, compared and hashed with no other change.
 *
 * <p>Comparisons can ignore named paths: {@code "message"} is a property, {@code
 * "conditions/message"} the property {@code message} of every element of the list {@code
 * conditions}. Properties are read through method handles found once per class, so a comparison
 * costs a few getter calls, not a JSON round trip: the admission loop compares every waiting job's
 * status on every pass.
 *
 * @param <T> the object type
 */
public final class StatusFields<T> {

  private static final ClassValue<StatusFields<?>> BY_CLASS =
      new ClassValue<>() {
        @Override
        protected StatusFields<?> computeValue(Class<?> type) {
          return new StatusFields<>(type);
        }
      };

  private record Property(String name, MethodHandle getter, MethodHandle setter) {}

  private final Class<T> type;
  private final List<Property> properties;
  private final MethodHandle constructor;

  private StatusFields(Class<T> type) {
    this.type = type;
    ObjectMapper mapper = Serialization.jsonMapper();
    BeanDescription bean = mapper.getDeserializationConfig().introspect(mapper.constructType(type));
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    List<Property> found = new ArrayList<>();
    try {
      for (BeanPropertyDefinition p : bean.findProperties()) {
        AnnotatedMethod getter = p.getGetter();
        AnnotatedMethod setter = p.getSetter();
        if (getter == null || setter == null) {
          throw new IllegalArgumentException(
              type.getName() + "." + p.getName() + " needs a public getter and setter");
        }
        found.add(
            new Property(
                p.getName(),
                lookup.unreflect(getter.getAnnotated()),
                lookup.unreflect(setter.getAnnotated())));
      }
      this.constructor = lookup.unreflectConstructor(type.getConstructor());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(type.getName() + " is not a public bean", e);
    }
    this.properties = List.copyOf(found);
  }

  /** The fields of {@code type}, found once and kept for the life of the class. */
  @SuppressWarnings("unchecked")
  public static <T> StatusFields<T> of(Class<T> type) {
    return (StatusFields<T>) BY_CLASS.get(type);
  }

  /** The JSON names of the properties, in the order Jackson writes them. */
  public List<String> names() {
    return properties.stream().map(Property::name).toList();
  }

  /**
   * A copy whose lists and maps are new (lists unmodifiable, maps in their order), so the copy can
   * be changed without touching the original; the values in them are shared, as nothing changes
   * them in place. A null source gives an empty object.
   */
  public T copy(T source) {
    T out = newInstance();
    if (source == null) {
      return out;
    }
    for (Property p : properties) {
      set(p, out, copyOf(get(p, source)));
    }
    return out;
  }

  /** True when {@code a} and {@code b} have equal values at every path but the ignored ones. */
  public boolean equal(T a, Object b, String... ignoredPaths) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null || a.getClass() != b.getClass()) {
      return false;
    }
    Map<String, List<String>> ignored = parse(ignoredPaths);
    for (Property p : properties) {
      List<String> sub = ignored.get(p.name());
      if (sub != null && sub.isEmpty()) {
        continue; // the whole property is ignored
      }
      Object x = get(p, a);
      Object y = get(p, type.cast(b));
      if (sub == null ? !Objects.equals(x, y) : !equalElements(x, y, sub)) {
        return false;
      }
    }
    return true;
  }

  /** A hash over every property, consistent with {@link #equal} without ignored paths. */
  public int hash(T a) {
    int h = 1;
    for (Property p : properties) {
      h = 31 * h + Objects.hashCode(get(p, a));
    }
    return h;
  }

  private static boolean equalElements(Object x, Object y, List<String> ignoredInElements) {
    if (!(x instanceof List<?> l1) || !(y instanceof List<?> l2) || l1.size() != l2.size()) {
      return Objects.equals(x, y);
    }
    String[] paths = ignoredInElements.toArray(String[]::new);
    for (int i = 0; i < l1.size(); i++) {
      Object e1 = l1.get(i);
      Object e2 = l2.get(i);
      if (e1 == null || e2 == null || e1.getClass() != e2.getClass()) {
        if (!Objects.equals(e1, e2)) {
          return false;
        }
      } else if (!elementFields(e1).equal(e1, e2, paths)) {
        return false;
      }
    }
    return true;
  }

  @SuppressWarnings("unchecked")
  private static StatusFields<Object> elementFields(Object e) {
    return (StatusFields<Object>) of(e.getClass());
  }

  private static Map<String, List<String>> parse(String[] paths) {
    Map<String, List<String>> out = new HashMap<>();
    for (String path : paths) {
      int slash = path.indexOf('/');
      if (slash < 0) {
        out.put(path, List.of());
      } else {
        out.computeIfAbsent(path.substring(0, slash), k -> new ArrayList<>())
            .add(path.substring(slash + 1));
      }
    }
    return out;
  }

  private static Object copyOf(Object value) {
    if (value instanceof List<?> l) {
      return Collections.unmodifiableList(new ArrayList<>(l));
    }
    if (value instanceof SortedMap<?, ?> m) {
      return new TreeMap<>(m);
    }
    if (value instanceof Map<?, ?> m) {
      return new LinkedHashMap<>(m);
    }
    return value;
  }

  private T newInstance() {
    try {
      return type.cast(constructor.invoke());
    } catch (Throwable e) {
      throw new IllegalStateException("cannot create " + type.getName(), e);
    }
  }

  private static Object get(Property p, Object from) {
    try {
      return p.getter().invoke(from);
    } catch (Throwable e) {
      throw new IllegalStateException("cannot read " + p.name(), e);
    }
  }

  private static void set(Property p, Object on, Object value) {
    try {
      p.setter().invoke(on, value);
    } catch (Throwable e) {
      throw new IllegalStateException("cannot write " + p.name(), e);
    }
  }
}
