#!/usr/bin/env node
// `pnpm test:reliability [--reduced] [vitest arguments…]`: runs every scenario (vitest.config.ts)
// at full or reduced scale, then merges their figures with the secret audit's into
// reliability-report.json, prints the readable summary, and exits 1 when a test failed or a
// required zero is not zero.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ALL_CONFIGURED_SECRETS,
  AUDIT_DIR_ENV,
  readDeclaredSecrets,
  readRecorded,
  scan,
} from '@paykit/testing/secret-audit';
import { formatSummary, readScenarios, REPORT_DIR_ENV, violations, type ReliabilityReport } from './report.ts';
import { SCALE_ENV } from './scale.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(`usage: pnpm test:reliability [--reduced] [vitest arguments, e.g. a scenario file name or -t NAME]
  --reduced   fewer events and shorter outages, the same checks (CI runs this)
Writes reliability-report.json in the current folder and prints a summary.`);
  process.exit(0);
}
const reduced = args.includes('--reduced');
const vitestArgs = args.filter((arg) => arg !== '--reduced');

const work = mkdtempSync(path.join(tmpdir(), 'paykit-reliability-'));
const scenariosDir = path.join(work, 'scenarios');
const auditDir = path.join(work, 'audit');
mkdirSync(scenariosDir);
mkdirSync(auditDir);

const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const config = path.resolve(import.meta.dirname, '../vitest.config.ts');
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, [vitest, 'run', '--config', config, ...vitestArgs], {
    stdio: 'inherit',
    env: {
      ...process.env,
      [SCALE_ENV]: reduced ? 'reduced' : 'full',
      [REPORT_DIR_ENV]: scenariosDir,
      [AUDIT_DIR_ENV]: auditDir,
    },
  });
  child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
});

const recorded = readRecorded(auditDir);
const findings = scan(recorded, [...ALL_CONFIGURED_SECRETS, ...readDeclaredSecrets(auditDir)]);
const scenarios = readScenarios(scenariosDir);
const secrets = { outputsScanned: recorded.length, found: findings.length };
const report: ReliabilityReport = {
  generatedAt: new Date().toISOString(),
  scale: reduced ? 'reduced' : 'full',
  store: process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PGlite',
  scenarios,
  secrets,
  violations: violations(scenarios, secrets),
};
if (scenarios.length === 0) report.violations.push('no scenario recorded its figures');
writeFileSync('reliability-report.json', `${JSON.stringify(report, null, 2)}\n`);
rmSync(work, { recursive: true, force: true });
console.log(`\n${formatSummary(report)}\nreport: ${path.resolve('reliability-report.json')}`);
process.exit(code !== 0 || report.violations.length > 0 ? 1 : 0);
