package io.octomy.batch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Test class names say their tier: {@code *Test} is fast and pure (surefire), {@code *IT} runs
 * against an API server and {@code *E2E} through kubectl or child processes (both failsafe). A
 * {@code *Test} that starts a server or a process is in the wrong tier.
 */
class TestTiersTest {

  private static final JavaClasses TESTS =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
          .importPackages("io.octomy.batch");

  private static final ArchRule UNIT_TESTS_START_NO_SERVER_AND_NO_PROCESS =
      noClasses()
          .that()
          .haveSimpleNameEndingWith("Test")
          .should()
          .dependOnClassesThat()
          .haveNameMatching(
              "java\\.lang\\.ProcessBuilder"
                  + "|io\\.fabric8\\.kubernetes\\.client\\.server\\.mock\\..*"
                  + "|io\\.octomy\\.batch\\.standalone\\.(EmbeddedApiServer|StandaloneRuntime"
                  + "|Kubectl|StandaloneProcess)"
                  + "|io\\.octomy\\.batch\\.controller\\.MockApi"
                  + "|io\\.octomy\\.batch\\.evidence\\.ChildJvm"
                  + "|io\\.octomy\\.batch\\.agent\\.ProcessExecutor")
          .because("a server belongs in an *IT, kubectl or a child process in an *E2E");

  @Test
  void unitTestsStartNoServerAndNoProcess() {
    UNIT_TESTS_START_NO_SERVER_AND_NO_PROCESS.check(TESTS);
  }
}
