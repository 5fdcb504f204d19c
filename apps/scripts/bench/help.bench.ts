// `paykit --help` start-up (target: under 500 ms, to feel instant), against a bare Node start in
// the same run: the CLI's own share is the difference.
import path from 'node:path';
import { recordResult, timeCommand } from '@paykit/bench';

const TARGET_MS = 500;
const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

const node = timeCommand(process.execPath, ['-e', ''], { runs: 15, warmup: 2 });
const help = timeCommand(process.execPath, ['--conditions=@paykit/source', MAIN, '--help'], { runs: 15, warmup: 2 });
const met = help.medianMs < TARGET_MS;
console.log(`node -e '' (baseline):   median ${node.medianMs} ms`);
console.log(
  `paykit --help:          median ${help.medianMs} ms (${(help.medianMs / node.medianMs).toFixed(1)}× a bare Node start; target under ${TARGET_MS} ms: ${met ? 'met' : 'MISSED'})`,
);
const file = await recordResult('cli-help', {
  nodeMedianMs: node.medianMs,
  helpMedianMs: help.medianMs,
  targetMs: TARGET_MS,
  met,
});
console.log(`recorded in ${file}`);
if (!met) process.exitCode = 1;
