package io.octomy.batch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaAccess.Predicates.targetOwner;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The architecture, checked on every build. Read top to bottom:
 *
 * <ol>
 *   <li>{@code vocabulary} holds the words every other package shares (phases, service classes,
 *       node modes and the mode table with its one offer function, the policy values, resource
 *       names, labels, condition types, timestamps). It depends on the JDK only.
 *   <li>{@code admission} is the decision: a pure function over an immutable snapshot. It depends
 *       on the vocabulary and the JDK only, and reads no clock.
 *   <li>{@code visibility} answers "where am I, when do I start, why not now, what if" from the
 *       same pure pass and a forecast of the passes to come. It depends on admission, the
 *       vocabulary and the JDK only, and reads no clock: it is pure too.
 *   <li>{@code api} is the Kubernetes objects (fabric8 types, CRD generation, spec validation). It
 *       knows nothing of who reads or writes them.
 *   <li>{@code policy} reads the policy file into the vocabulary's {@code Policy}.
 *   <li>{@code controller} (decide, write, follow runs, fold drift) and {@code agent} (report the
 *       node, run and measure jobs) meet only through API objects: neither imports the other.
 *   <li>{@code apiserver} is a Kubernetes API server for any CRD it is given (routing, storage,
 *       watch, validation, apply). It imports nothing of the product, only {@code tls}, the
 *       certificate maker it shares with the controller's aggregated API.
 *   <li>{@code standalone} composes the embedded API server, the controller and an agent in one
 *       process; {@code cli} and {@code Main} are the entry points. Nothing else composes them.
 * </ol>
 */
class ArchitectureTest {

  /** The classes of main, imported once for every rule. */
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.octomy.batch");

  private static final String VOCABULARY = "io.octomy.batch.vocabulary..";
  private static final String ADMISSION = "io.octomy.batch.admission..";
  private static final String VISIBILITY = "io.octomy.batch.visibility..";
  private static final String API = "io.octomy.batch.api..";
  private static final String POLICY = "io.octomy.batch.policy..";
  private static final String CONTROLLER = "io.octomy.batch.controller..";
  private static final String DRIFT = "io.octomy.batch.controller.drift..";
  private static final String AGENT = "io.octomy.batch.agent..";
  private static final String STANDALONE = "io.octomy.batch.standalone..";
  private static final String APISERVER = "io.octomy.batch.apiserver..";
  private static final String TLS = "io.octomy.batch.tls..";
  private static final String CLI = "io.octomy.batch.cli..";
  private static final String PLUGIN = "io.octomy.batch.plugin..";
  private static final String SERVED_VISIBILITY = "io.octomy.batch.controller.visibility..";
  private static final String AGGREGATED_VISIBILITY = "io.octomy.batch.controller.aggregated..";

  private static final ArchRule VOCABULARY_DEPENDS_ON_THE_JDK_ONLY =
      classes()
          .that()
          .resideInAPackage(VOCABULARY)
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(VOCABULARY, "java..")
          .because("every package shares these words, so they can lean on nothing");

  private static final ArchRule JOB_OUTPUT_READING_DEPENDS_ON_THE_JDK_ONLY =
      classes()
          .that()
          .resideInAPackage("io.octomy.batch.output..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("io.octomy.batch.output..", "java..")
          .because("the controller and the agent both read job output with it");

  private static final ArchRule ADMISSION_DEPENDS_ON_THE_VOCABULARY_AND_THE_JDK_ONLY =
      classes()
          .that()
          .resideInAPackage(ADMISSION)
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(ADMISSION, VOCABULARY, "java..")
          .because("the decision is a pure function over an immutable snapshot");

  private static final ArchRule VISIBILITY_DEPENDS_ON_ADMISSION_THE_VOCABULARY_AND_THE_JDK_ONLY =
      classes()
          .that()
          .resideInAPackage(VISIBILITY)
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(VISIBILITY, ADMISSION, VOCABULARY, "java..")
          .because("its answers come from the pure pass, so they are pure as well");

  private static final ArchRule DRIFT_MATH_DEPENDS_ON_THE_VOCABULARY_AND_THE_JDK_ONLY =
      classes()
          .that()
          .resideInAPackage(DRIFT)
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(DRIFT, VOCABULARY, "java..", "com.fasterxml.jackson.annotation..")
          .because("drift is folded by pure functions; only its JSON shape is annotated");

  private static final ArchRule DECISIONS_READ_NO_CLOCK_OF_THEIR_OWN =
      noClasses()
          .that()
          .resideInAnyPackage(ADMISSION, DRIFT, VISIBILITY)
          .should()
          .callMethod(Instant.class, "now")
          .orShould()
          .callMethod(System.class, "currentTimeMillis")
          .orShould()
          .callMethod(System.class, "nanoTime")
          .orShould()
          .callMethod(Clock.class, "systemUTC")
          .orShould()
          .callMethod(Clock.class, "systemDefaultZone")
          .because("the snapshot carries the time, so a pass can be replayed");

  private static final ArchRule API_KNOWS_NOTHING_OF_ITS_READERS_AND_WRITERS =
      noClasses()
          .that()
          .resideInAPackage(API)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(ADMISSION, POLICY, CONTROLLER, AGENT, STANDALONE, CLI);

  private static final ArchRule THE_API_SERVER_KNOWS_NOTHING_OF_THE_PRODUCT =
      noClasses()
          .that()
          .resideInAPackage(APISERVER)
          .should()
          .dependOnClassesThat(
              resideInAPackage("io.octomy.batch..").and(not(resideInAnyPackage(APISERVER, TLS))))
          .because("it serves any CRD it is given; the product's wiring hands it what it serves");

  private static final ArchRule TLS_DEPENDS_ON_THE_JDK_AND_BOUNCYCASTLE_ONLY =
      classes()
          .that()
          .resideInAPackage(TLS)
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(TLS, "java..", "org.bouncycastle..")
          .because("the API server and the controller share it, so it leans on neither");

  private static final ArchRule CONTROLLER_AND_AGENT_MEET_ONLY_THROUGH_API_OBJECTS =
      noClasses()
          .that()
          .resideInAPackage(CONTROLLER)
          .should()
          .dependOnClassesThat()
          .resideInAPackage(AGENT)
          .orShould()
          .dependOnClassesThat()
          .resideInAPackage(STANDALONE);

  private static final ArchRule AGENT_AND_CONTROLLER_MEET_ONLY_THROUGH_API_OBJECTS =
      noClasses()
          .that()
          .resideInAPackage(AGENT)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(CONTROLLER, ADMISSION, STANDALONE);

  private static final ArchRule LAYERS =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("Entry")
          .definedBy("io.octomy.batch", CLI)
          .layer("Standalone")
          .definedBy(STANDALONE)
          .layer("ApiServer")
          .definedBy(APISERVER)
          .layer("Tls")
          .definedBy(TLS)
          .layer("Controller")
          .definedBy(CONTROLLER)
          .layer("Agent")
          .definedBy(AGENT)
          .layer("Policy")
          .definedBy(POLICY)
          .layer("Visibility")
          .definedBy(VISIBILITY)
          .layer("Admission")
          .definedBy(ADMISSION)
          .layer("Api")
          .definedBy(API)
          .layer("Vocabulary")
          .definedBy(VOCABULARY)
          .whereLayer("Entry")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("Standalone")
          .mayOnlyBeAccessedByLayers("Entry")
          .whereLayer("ApiServer")
          .mayOnlyBeAccessedByLayers("Entry", "Standalone")
          .whereLayer("Tls")
          .mayOnlyBeAccessedByLayers("Entry", "ApiServer", "Controller")
          .whereLayer("Controller")
          .mayOnlyBeAccessedByLayers("Entry", "Standalone")
          .whereLayer("Agent")
          .mayOnlyBeAccessedByLayers("Entry", "Standalone")
          .whereLayer("Policy")
          .mayOnlyBeAccessedByLayers("Entry", "Standalone")
          .whereLayer("Visibility")
          .mayOnlyBeAccessedByLayers("Controller")
          .whereLayer("Admission")
          .mayOnlyBeAccessedByLayers("Controller", "Visibility")
          .whereLayer("Api")
          .mayOnlyBeAccessedByLayers("Entry", "Standalone", "Controller", "Agent")
          .because("standalone and the entry points are the only places that compose the parts");

  private static final ArchRule THE_PLUGIN_IS_A_THIN_CLIENT =
      classes()
          .that()
          .resideInAPackage(PLUGIN)
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              PLUGIN,
              "java..",
              // kubectl octomy ui's web server: the JDK's own, no framework
              "com.sun.net.httpserver",
              "picocli..",
              "com.fasterxml.jackson..",
              "io.fabric8.kubernetes.client",
              "io.fabric8.kubernetes.client.http")
          .because(
              "every answer of kubectl octomy is the server's: the plugin only asks and prints");

  private static final ArchRule THE_VISIBILITY_API_WRITES_NOTHING =
      noClasses()
          .that()
          .resideInAnyPackage(VISIBILITY, SERVED_VISIBILITY, AGGREGATED_VISIBILITY)
          .should()
          .dependOnClassesThat()
          .haveNameMatching(
              "io\\.octomy\\.batch\\.controller\\.(ClusterWriter|KubernetesWriter|StatusWrite.*|WriteStep"
                  + "|DecisionStep|StatusComposer)")
          .because("the queue, why and fit are computed when asked and never written to status");

  private static final String PREPARED_JOB = "io.octomy.batch.admission.PreparedJob";

  private static final ArchRule THE_PASS_STATE_STAYS_IN_ADMISSION =
      classes()
          .that()
          .haveNameMatching(
              "io\\.octomy\\.batch\\.admission\\.(AdmissionRules|PassState|PassRecall|PreparedJob"
                  + "|KeptNodes|DecisionWords|SimulatedPass|FuturePasses)")
          .should()
          .notBePublic()
          .because(
              "nothing outside admission may change a pass's state: it is reached only through"
                  + " AdmissionPass and the results it returns");

  private static final ArchRule ONLY_A_PREPARED_JOB_SETS_ITS_FIELDS =
      noClasses()
          .that()
          .doNotHaveFullyQualifiedName(PREPARED_JOB)
          .should()
          .setFieldWhere(targetOwner(name(PREPARED_JOB)))
          .because(
              "a job's standing, reservation and placement memos change through its named methods"
                  + " only (rank, holdOn, releaseAll, ...), so each change is found in one place");

  private static final ArchRule NO_CYCLES_BETWEEN_PACKAGES =
      slices().matching("io.octomy.batch.(**)").should().beFreeOfCycles();

  private static final ArchRule EVERY_TYPE_NAME_IS_UNIQUE =
      classes()
          .that()
          .areNotAnonymousClasses()
          .and()
          .areNotLocalClasses()
          .should(haveASimpleNameNoOtherTypeHas())
          .because("a reader (and an import) should never have to tell two types apart by package");

  @Test
  void thePassStateStaysInAdmission() {
    THE_PASS_STATE_STAYS_IN_ADMISSION.check(MAIN);
  }

  @Test
  void onlyAPreparedJobSetsItsFields() {
    ONLY_A_PREPARED_JOB_SETS_ITS_FIELDS.check(MAIN);
  }

  @Test
  void vocabularyDependsOnTheJdkOnly() {
    VOCABULARY_DEPENDS_ON_THE_JDK_ONLY.check(MAIN);
  }

  @Test
  void jobOutputReadingDependsOnTheJdkOnly() {
    JOB_OUTPUT_READING_DEPENDS_ON_THE_JDK_ONLY.check(MAIN);
  }

  @Test
  void admissionDependsOnTheVocabularyAndTheJdkOnly() {
    ADMISSION_DEPENDS_ON_THE_VOCABULARY_AND_THE_JDK_ONLY.check(MAIN);
  }

  @Test
  void visibilityDependsOnAdmissionTheVocabularyAndTheJdkOnly() {
    VISIBILITY_DEPENDS_ON_ADMISSION_THE_VOCABULARY_AND_THE_JDK_ONLY.check(MAIN);
  }

  @Test
  void driftMathDependsOnTheVocabularyAndTheJdkOnly() {
    DRIFT_MATH_DEPENDS_ON_THE_VOCABULARY_AND_THE_JDK_ONLY.check(MAIN);
  }

  @Test
  void decisionsReadNoClockOfTheirOwn() {
    DECISIONS_READ_NO_CLOCK_OF_THEIR_OWN.check(MAIN);
  }

  @Test
  void apiKnowsNothingOfItsReadersAndWriters() {
    API_KNOWS_NOTHING_OF_ITS_READERS_AND_WRITERS.check(MAIN);
  }

  @Test
  void theApiServerKnowsNothingOfTheProduct() {
    THE_API_SERVER_KNOWS_NOTHING_OF_THE_PRODUCT.check(MAIN);
  }

  @Test
  void tlsDependsOnTheJdkAndBouncyCastleOnly() {
    TLS_DEPENDS_ON_THE_JDK_AND_BOUNCYCASTLE_ONLY.check(MAIN);
  }

  @Test
  void controllerAndAgentMeetOnlyThroughApiObjects() {
    CONTROLLER_AND_AGENT_MEET_ONLY_THROUGH_API_OBJECTS.check(MAIN);
  }

  @Test
  void agentAndControllerMeetOnlyThroughApiObjects() {
    AGENT_AND_CONTROLLER_MEET_ONLY_THROUGH_API_OBJECTS.check(MAIN);
  }

  @Test
  void layers() {
    LAYERS.check(MAIN);
  }

  @Test
  void noCyclesBetweenPackages() {
    NO_CYCLES_BETWEEN_PACKAGES.check(MAIN);
  }

  @Test
  void thePluginIsAThinClient() {
    THE_PLUGIN_IS_A_THIN_CLIENT.check(MAIN);
  }

  @Test
  void theVisibilityApiWritesNothing() {
    THE_VISIBILITY_API_WRITES_NOTHING.check(MAIN);
  }

  @Test
  void everyTypeNameIsUnique() {
    EVERY_TYPE_NAME_IS_UNIQUE.check(MAIN);
  }

  /** The tests' own types too: a fixture found by its name is the one meant. */
  @Test
  void everyTestTypeNameIsUnique() {
    JavaClasses tests =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
            .importPackages("io.octomy.batch");
    Map<String, List<String>> byName = new HashMap<>();
    for (JavaClass c : tests) {
      if (c.isTopLevelClass() && !c.getPackageName().contains("jmh_generated")) {
        byName.computeIfAbsent(c.getSimpleName(), k -> new ArrayList<>()).add(c.getName());
      }
    }
    assertThat(byName.values())
        .as("top-level test types sharing a name")
        .allMatch(n -> n.size() == 1);
    assertThat(byName).containsKey("ArchitectureTest");
  }

  private static ArchCondition<JavaClass> haveASimpleNameNoOtherTypeHas() {
    Map<String, List<String>> byName = new HashMap<>();
    return new ArchCondition<>("have a simple name no other type in main has") {
      @Override
      public void init(Collection<JavaClass> all) {
        byName.clear();
        for (JavaClass c : all) {
          if (!c.isAnonymousClass()
              && !c.isLocalClass()
              && !c.getSimpleName().equals("package-info")) {
            byName.computeIfAbsent(c.getSimpleName(), k -> new ArrayList<>()).add(c.getName());
          }
        }
      }

      @Override
      public void check(JavaClass c, ConditionEvents events) {
        List<String> same = byName.getOrDefault(c.getSimpleName(), List.of());
        boolean unique = same.size() <= 1;
        events.add(
            new SimpleConditionEvent(
                c, unique, c.getName() + " shares its simple name with " + same));
      }
    };
  }
}
