// The CLI's conventions, as users run it (a child process against a real sandbox): exit 2 with one
// line for a value only the server would refuse, --version, --help everywhere (an unknown command
// followed by --help named, exit 2), amounts formatted
// for people and raw in JSON, card numbers masked everywhere, a repeated penny validation called
// a replay, the bin that runs without a build, and completion for the binary as invoked.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CommanderError } from 'commander';
import { runNode, type NodeRun as Run } from '@paykit/testing/run-node';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../src/program.ts';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const ROOT = path.resolve(import.meta.dirname, '../../..');
const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA = '66666666-6666-4666-8666-000000000005';
/** The seed's debit card: Visa's documented test number. */
const PAN = '4111111111111111';

let sandbox: SandboxProcess;
let dir: string;
let env: Record<string, string>;

const paykit = (args: string[], extraEnv: Record<string, string> = {}): Promise<Run> =>
  runNode(MAIN, args, { name: 'paykit', env: { ...process.env, ...env, ...extraEnv }, timeoutMs: 90_000 });
const json = <T>(run: Run): T => JSON.parse(run.stdout) as T;

/** A usage error: exit 2, one line on stderr, no stack trace. */
function expectUsage(run: Run, message: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr.trim()).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).toBe('');
}

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  dir = mkdtempSync(path.join(tmpdir(), 'paykit-conventions-'));
  env = {
    PAYKIT_SANDBOX_URL: sandbox.url,
    PAYKIT_TOKEN_DIR: path.join(dir, 'tokens'),
    PAYKIT_CONFIG: '',
    HOME: dir,
    PAYKIT_DATA_DIR: path.join(dir, 'ledger'),
    DATABASE_URL: '',
  };
});
afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('paykit conventions', () => {
  it('refuses values only the server would refuse with exit 2 and one line, sending nothing', async () => {
    const before = await sandbox.control.listDeliveries({ query: {} });
    expectUsage(
      await paykit(['trigger', 'money-in', '--clabe', '646180000000000013', '--amount', '10.00']),
      /^error: --clabe is not a valid CLABE: .*control digit/,
    );
    expectUsage(
      await paykit(['trigger', 'money-in', '--clabe', '646180000000000012', '--amount', '10.5']),
      /--amount has one decimal: an amount has exactly two, such as "10.50" \(got "10.5"\)/,
    );
    expectUsage(
      await paykit(['trigger', 'money-in', '--clabe', '6461800000', '--amount', '10.00']),
      /has exactly 18 digits/,
    );
    expectUsage(
      await paykit(['money-out', '--source', ACME, '--destination', BBVA, '--amount', '0.00']),
      /--amount is zero: no money moved/,
    );
    expectUsage(
      await paykit(['money-out', '--source', ACME, '--destination', BBVA, '--amount', '1,500.00']),
      /--amount has a comma: write no thousands separator/,
    );
    expectUsage(
      await paykit(['penny-validate', '--source', ACME, '--destination', BBVA, '--reference', '12345678']),
      /--reference must be numeric, at most 7 digits/,
    );
    expectUsage(
      await paykit([
        'receivables',
        'add',
        '--id',
        'I-1',
        '--clabe',
        '646180000000000012',
        '--amount',
        '5',
        '--due',
        '2026-12-01',
      ]),
      /--amount has no decimals: an amount has exactly two, such as "5.00" \(got "5"\)/,
    );
    expectUsage(
      await paykit([
        'receivables',
        'add',
        '--id',
        'I-1',
        '--clabe',
        '646180000000000012',
        '--amount',
        '5.00',
        '--due',
        '01-12-2026',
      ]),
      /--due must be a day, YYYY-MM-DD/,
    );
    expectUsage(await paykit(['sandbox', 'cash-operation', '--amount', '2.50']), /whole pesos/);
    expectUsage(await paykit(['dd', 'instruments', 'list', '--limit', 'ten']), /--limit must be a whole number/);
    expectUsage(
      await paykit(['no-such-command']),
      /^error: unknown command 'no-such-command' \(run with --help for usage\)$/,
    );
    expectUsage(
      await paykit(['money-out', '--source', ACME]),
      /required option '--destination <instrumentId>' not specified/,
    );
    expectUsage(
      await paykit(['events', 'list', '--source', 'bank'], { GATEWAY_ADMIN_TOKEN: 'x'.repeat(32) }),
      /--source must be core, cash or direct_debit/,
    );
    // A CLABE is account data: the message says what is wrong without repeating it.
    expect(
      (await paykit(['trigger', 'money-in', '--clabe', '646180000000000013', '--amount', '10.00'])).stderr,
    ).not.toContain('646180000000000013');
    // A URL's user:password is a credential: the message shows the URL without it.
    const withPassword = await paykit(['events', 'replay', '1', '--to', 'ftp://ops:hunter2-secret@127.0.0.1/'], {
      GATEWAY_ADMIN_TOKEN: 'x'.repeat(32),
    });
    expectUsage(withPassword, /--to must be an http\(s\) URL/);
    expect(withPassword.stderr).not.toContain('hunter2-secret');
    const after = await sandbox.control.listDeliveries({ query: {} });
    expect(after.body).toEqual(before.body);
  }, 120_000);

  it('prints its version, and help for every command', async () => {
    const version = await paykit(['--version']);
    expect(version.code).toBe(0);
    const { version: expected } = JSON.parse(
      readFileSync(path.join(import.meta.dirname, '../package.json'), 'utf8'),
    ) as { version: string };
    expect(version.stdout.trim()).toBe(`paykit ${expected} (node ${process.version})`);
    // Every command of the tree, in process (commander's own parse): help printed, exit 0.
    const paths: string[][] = [];
    const walk = (command: ReturnType<typeof buildProgram>, prefix: string[]) => {
      for (const child of command.commands) {
        paths.push([...prefix, child.name()]);
        walk(child, [...prefix, child.name()]);
      }
    };
    walk(buildProgram(), []);
    expect(paths.length).toBeGreaterThan(40);
    for (const words of paths) {
      let printed = '';
      const program = buildProgram();
      const capture = (command: ReturnType<typeof buildProgram>) => {
        command.configureOutput({ writeOut: (text) => (printed += text), writeErr: (text) => (printed += text) });
        for (const child of command.commands) capture(child);
      };
      capture(program);
      const exit = await program.parseAsync(['node', 'paykit', ...words, '--help']).then(
        () => 'no exit',
        (error: unknown) => (error instanceof CommanderError ? error.exitCode : error),
      );
      expect(exit, words.join(' ')).toBe(0);
      expect(printed, words.join(' ')).toMatch(/^Usage: paykit /);
    }
    // And as a process, for a nested command.
    const help = await paykit(['events', 'replay', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--to <url>');
    // --help after a command that does not exist names it (exit 2) instead of printing the help
    // of the deepest command that does; an option's value is not read as a command.
    expectUsage(await paykit(['vault', 'archive', '--help']), /^error: unknown command 'vault' \(run with --help/);
    expectUsage(await paykit(['events', 'bogus', '-h']), /^error: unknown command 'bogus' \(run with --help/);
    const withValue = await paykit(['--profile', 'store', 'events', '--help']);
    expect(withValue.code, withValue.stderr).toBe(0);
    expect(withValue.stdout).toMatch(/^Usage: paykit events /);
  });

  it('masks card numbers to their last 4 digits in lists, JSON and both export formats', async () => {
    const table = await paykit(['dd', 'instruments', 'list']);
    const listed = await paykit(['--json', 'dd', 'instruments', 'list', '--limit', '1']);
    const jsonl = path.join(dir, 'instruments.jsonl');
    const csv = path.join(dir, 'instruments.csv');
    const exports = [
      await paykit(['dd', 'instruments', 'export', '--out', jsonl]),
      await paykit(['dd', 'instruments', 'export', '--format', 'csv', '--out', csv]),
    ];
    for (const run of [table, listed, ...exports]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(PAN);
    }
    const cards = json<{ type: string; mx_direct_debit_card?: { card_number: string } }[]>(listed).filter(
      (i) => i.type === 'mx_direct_debit_card',
    );
    expect(cards.length).toBeGreaterThan(0);
    for (const card of cards) expect(card.mx_direct_debit_card?.card_number).toBe('************1111');
    for (const file of [jsonl, csv]) {
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(PAN);
      expect(text).toContain('************1111');
    }
  });

  it('says a repeated penny validation is a replay of the first, and --json says replayed', async () => {
    const args = ['penny-validate', '--source', ACME, '--destination', BBVA, '--reference', '4242'];
    const first = await paykit(['--json', ...args]);
    expect(first.code, first.stderr).toBe(0);
    const made = json<{ id: string; replayed: boolean; audit: { createdAt: string } }>(first);
    expect(made.replayed).toBe(false);
    expect(first.stderr).not.toMatch(/replay/);

    const again = await paykit(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `replay of ${made.id} created at ${made.audit.createdAt}; no new validation was made`,
    );
    const repeated = await paykit(['--json', ...args]);
    expect(json<{ id: string; replayed: boolean }>(repeated)).toMatchObject({ id: made.id, replayed: true });

    // Another reference is another validation.
    const other = await paykit([
      '--json',
      'penny-validate',
      '--source',
      ACME,
      '--destination',
      BBVA,
      '--reference',
      '4243',
    ]);
    expect(json<{ id: string; replayed: boolean }>(other)).toMatchObject({ replayed: false });
    expect(json<{ id: string }>(other).id).not.toBe(made.id);
  }, 180_000);

  it('formats amounts with currency and separators for people, and keeps them raw in JSON', async () => {
    const args = ['money-out', '--source', ACME, '--destination', BBVA, '--amount', '13065.50', '--reference', '77'];
    const human = await paykit(args);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^amount\s+MXN 13,065.50$/m);
    const raw = await paykit(['--json', ...args]);
    expect(json<{ amount: string }>(raw).amount).toBe('13065.50');
    const cash = await paykit(['sandbox', 'cash-operation', '--amount', '1300']);
    expect(cash.stdout).toMatch(/^amount\s+MXN 1,300$/m);
  }, 120_000);

  it('runs as the paykit bin without a build, and completes the binary by the name it was invoked as', async () => {
    const plainEnv = { ...process.env, ...env };
    // The bin as a package manager links it into a node_modules/.bin: a symlink named paykit; and
    // once more as pk. Neither has a build to fall back on.
    const bin = path.join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const BIN = path.join(bin, 'paykit');
    symlinkSync(path.join(ROOT, 'apps/scripts/bin/paykit.js'), BIN);
    symlinkSync(path.join(ROOT, 'apps/scripts/bin/paykit.js'), path.join(bin, 'pk'));
    const version = spawnSync(BIN, ['--version'], { env: plainEnv, encoding: 'utf8' });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/^paykit \d+\.\d+\.\d+ \(node v/);
    // A command that loads the clients and the runtime from their sources.
    const listed = spawnSync(BIN, ['--json', 'credentials', 'list'], { env: plainEnv, encoding: 'utf8' });
    expect(listed.status, listed.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
    const usage = spawnSync(BIN, ['money-out', '--source', ACME, '--destination', BBVA, '--amount', '1.5'], {
      env: plainEnv,
      encoding: 'utf8',
    });
    expect(usage.status).toBe(2);

    // bash with the script sourced, the binary on the PATH under two names.
    const shell = (script: string) =>
      spawnSync('bash', ['--norc', '-c', script], {
        env: { ...plainEnv, PATH: `${bin}:${process.env.PATH}` },
        encoding: 'utf8',
      });
    const complete = (name: string, words: string) =>
      shell(
        `source <(${name} completion bash) && complete -p ${name} && COMP_WORDS=(${name} ${words}) && COMP_CWORD=${words.split(' ').length} && _paykit && printf '%s\\n' "\${COMPREPLY[@]}"`,
      );
    const events = complete('paykit', 'events l');
    expect(events.status, events.stderr).toBe(0);
    expect(events.stdout).toContain('complete -F _paykit paykit');
    expect(events.stdout.split('\n')).toContain('list');
    expect(events.stdout.split('\n')).not.toContain('show');
    const linked = complete('pk', 'ev');
    expect(linked.status, linked.stderr).toBe(0);
    expect(linked.stdout).toContain('complete -F _paykit pk');
    expect(linked.stdout.split('\n')).toContain('events');
    // Not on the PATH: nothing registered, and it says why.
    const absent = spawnSync('bash', ['--norc', '-c', `source <(${BIN} completion bash); complete -p paykit`], {
      // Node 24's folder holds only node: paykit itself is not on this PATH.
      env: { ...plainEnv, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` },
      encoding: 'utf8',
    });
    expect(absent.status).not.toBe(0);
    expect(absent.stderr).toContain('paykit completion: paykit is not on the PATH, nothing registered');
  });
});
