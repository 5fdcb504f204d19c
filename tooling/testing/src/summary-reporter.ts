// Prints one plain closing line after vitest's own summary, for tools that read a run's result
// from its last line: `tests: N passed, N failed, N skipped`. Before it, one `failed: <file> >
// <test>: <first line of the error>` line per failure (a CI log that keeps only its tail still
// names them; scripts/check.ts repeats them at the end of `pnpm check`), and the secret audit's
// result: a secret found in any test output or error counts as a failure.
import type { Reporter, TestModule } from 'vitest/node';
import { ALL_CONFIGURED_SECRETS, AUDIT_DIR_ENV, readDeclaredSecrets, readRecorded, scan } from './secret-audit.ts';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    const firstLine = (errors: ReadonlyArray<{ message?: string }>) =>
      (errors[0]?.message ?? 'no error recorded').split('\n', 1)[0]!.slice(0, 300);
    for (const module of testModules) {
      // A file that failed to load, or a hook that failed (its tests then show as skipped), is a
      // failure of its own.
      if (module.errors().length > 0 || (module.state() === 'failed' && [...module.children.allTests()].length === 0)) {
        failed++;
        failures.push(`${module.moduleId}: ${firstLine(module.errors())}`);
      }
      for (const suite of module.children.allSuites())
        if (suite.errors().length > 0) {
          failed++;
          failures.push(`${module.moduleId} > ${suite.fullName}: ${firstLine(suite.errors())}`);
        }
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') {
          failed++;
          failures.push(`${module.moduleId} > ${test.fullName}: ${firstLine(result.errors ?? [])}`);
        } else skipped++;
      }
    }
    failed += unhandledErrors.length;
    for (const error of unhandledErrors)
      failures.push(`unhandled: ${firstLine([error instanceof Error ? error : { message: String(error) }])}`);
    const dir = process.env[AUDIT_DIR_ENV];
    // An error may quote a secret (the audit below counts it): the line names the test, never the secret.
    const secrets = [...ALL_CONFIGURED_SECRETS, ...(dir ? readDeclaredSecrets(dir) : [])].filter((s) => s.length >= 8);
    for (const failure of failures) {
      const line = secrets.reduce((text, secret) => text.replaceAll(secret, '<secret>'), failure);
      process.stdout.write(`failed: ${line.replaceAll(`${process.cwd()}/`, '')}\n`);
    }
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
