// Prints one plain closing line after vitest's own summary, for tools that read a run's result
// from its last line: `tests: N passed, N failed, N skipped`. Before it, the secret audit's
// result: a secret found in any test output or error counts as a failure.
import type { Reporter, TestModule } from 'vitest/node';
import { ALL_CONFIGURED_SECRETS, AUDIT_DIR_ENV, readDeclaredSecrets, readRecorded, scan } from './secret-audit.ts';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      // A file that failed to load, or a hook that failed (its tests then show as skipped), is a
      // failure of its own.
      if (module.errors().length > 0 || (module.state() === 'failed' && [...module.children.allTests()].length === 0))
        failed++;
      for (const suite of module.children.allSuites()) if (suite.errors().length > 0) failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    failed += unhandledErrors.length;
    const dir = process.env[AUDIT_DIR_ENV];
    if (dir) {
      const recorded = readRecorded(dir);
      const findings = scan(recorded, [...ALL_CONFIGURED_SECRETS, ...readDeclaredSecrets(dir)]);
      process.stdout.write(
        `\nsecret audit: ${recorded.length} recorded outputs and errors scanned, ${findings.length} secret(s) found\n`,
      );
      for (const f of findings)
        process.stdout.write(`  ${f.kind}: ${f.secret} after "${f.excerpt}" — mask it at its source\n`);
      if (findings.length > 0) {
        failed += findings.length;
        process.exitCode = 1;
      }
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
