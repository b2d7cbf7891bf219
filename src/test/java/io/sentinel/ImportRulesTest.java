package io.sentinel;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.sentinel.engine.ImportRuleViolation;
import org.junit.jupiter.api.Test;

/** The import rules of docs/architecture.md hold for the gateway's own classes. */
class ImportRulesTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.sentinel");

  @Test
  void eachPackageImportsOnlyWhatTheTableAllows() {
    assertThat(MAIN.size()).as("classes analysed").isGreaterThan(100);
    ImportRules.MAY_IMPORT.keySet().forEach(pkg -> ImportRules.imports(pkg).check(MAIN));
  }

  @Test
  void everyPackageHasARow() {
    ImportRules.everyPackageInTheTable().check(MAIN);
  }

  @Test
  void theCoreKnowsNoFrameworkDatabaseOrHardwareType() {
    ImportRules.coreKnowsNoFramework().check(MAIN);
  }

  @Test
  void theCoreReadsNoClock() {
    ImportRules.coreReadsNoClock().check(MAIN);
  }

  /** The rules themselves: a class of the engine that breaks each is caught by each. */
  @Test
  void aDeliberateViolationIsCaught() {
    JavaClasses bad = new ClassFileImporter().importClasses(ImportRuleViolation.class);
    assertThat(ImportRules.imports("engine").evaluate(bad).hasViolation()).isTrue();
    assertThat(ImportRules.coreKnowsNoFramework().evaluate(bad).hasViolation()).isTrue();
    assertThat(ImportRules.coreReadsNoClock().evaluate(bad).hasViolation()).isTrue();
    assertThat(ImportRules.imports("engine").evaluate(bad).getFailureReport().toString())
        .contains("io.sentinel.store.Store");
    // The same class is fine where the table allows what it does (the gateway's composition).
    assertThat(ImportRules.imports("runtime").evaluate(bad).hasViolation()).isFalse();
  }
}
