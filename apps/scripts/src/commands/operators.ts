// The finance console's named operators (the store's console_operators): who may log in, as a
// `viewer` (reads and exports) or an `operator` (also retries parked events and releases held
// money). A password is read from a terminal without echo, or whole from standard input with
// --password-stdin, and is never printed; the store keeps its scrypt hash only. Each change is a
// row of the console's audit trail, by this user, from "cli". A disable or a reset ends the
// operator's logins on every console replica at their next request.
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { OPERATOR_NAME, OPERATOR_ROLES, type Operator } from '@paykit/store';
import * as z from 'zod';
import type { Context } from '../cli/context.ts';
import { CliError, UsageError } from '../cli/errors.ts';
import { flag } from '../cli/input.ts';
import { withDatabase } from './ledger.ts';

// The store's own rules for a name and a role, checked here to refuse a typo before the database opens.
const Name = z
  .string()
  .regex(OPERATOR_NAME, 'is lower-case letters, digits and . _ -, starting with a letter, up to 64');
const Role = z.enum(OPERATOR_ROLES, { error: 'is viewer (reads and exports) or operator (also acts)' });

const shown = (operator: Operator) => ({
  name: operator.name,
  role: operator.role,
  status: operator.status,
  createdAt: operator.createdAt.toISOString(),
  updatedAt: operator.updatedAt.toISOString(),
});

const actor = () => ({ by: userInfo().username, from: 'cli' });

/** Reads the whole of standard input (a password piped in); one trailing newline is dropped. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Asks on the terminal without echoing what is typed. */
function ask(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    process.stderr.write(question);
    // Nothing typed is written back: the readline's own output is silenced.
    (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => undefined;
    rl.question('', (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
  });
}

/** The new password: from standard input with --password-stdin, else typed twice on a terminal. */
async function newPassword(options: { passwordStdin?: boolean }): Promise<string> {
  if (options.passwordStdin) return readStdin();
  if (!process.stdin.isTTY)
    throw new UsageError(
      'No terminal to type the password on: pipe it in with --password-stdin (e.g. from your password manager); it is never printed.',
    );
  const first = await ask('New password (at least 12 characters): ');
  const second = await ask('The same password again: ');
  if (first !== second) throw new UsageError('The two passwords differ: nothing was changed. Run the command again.');
  return first;
}

/** `paykit operators list`: every operator, by name, with role and status (never a password). */
export async function operatorsList(ctx: Context): Promise<void> {
  await withDatabase(ctx, async (db, store) => {
    const operators = await store.createOperatorStore(db).list();
    if (operators.length === 0)
      ctx.out.note(
        'No operators: the console asks for CONSOLE_PASSWORD, or without it answers this machine only. Add one with `paykit operators add <name> --role operator`.',
      );
    ctx.out.result(operators.map(shown));
  });
}

/** `paykit operators add <name> --role viewer|operator`. */
export async function operatorsAdd(
  ctx: Context,
  name: string,
  options: { role: string; passwordStdin?: boolean },
): Promise<void> {
  flag(Name, 'NAME', name);
  const role = flag(Role, '--role', options.role);
  const password = await newPassword(options);
  await withDatabase(ctx, async (db, store) => {
    const operators = store.createOperatorStore(db);
    const first = !(await operators.anyActive());
    const added = await operators.add({ name, role, password }, actor());
    ctx.out.result(shown(added));
    ctx.out.note(
      first
        ? `${name} can log in at the console's /login. A console started before the first operator serves no page now (503) until it is restarted; it then asks for logins.`
        : `${name} can log in at the console's /login.`,
    );
  });
}

/** `paykit operators reset <name>`: a new password (the operator is active again); their logins end. */
export async function operatorsReset(ctx: Context, name: string, options: { passwordStdin?: boolean }): Promise<void> {
  flag(Name, 'NAME', name);
  const password = await newPassword(options);
  await withDatabase(ctx, async (db, store) => {
    const reset = await store.createOperatorStore(db).reset(name, password, actor());
    if (reset === undefined) throw unknown(name);
    ctx.out.result(shown(reset));
    ctx.out.note(`A new password for ${name}: their logins ended.`);
  });
}

/** `paykit operators disable <name>`: no more logins; their logins end at once. */
export async function operatorsDisable(ctx: Context, name: string): Promise<void> {
  flag(Name, 'NAME', name);
  await withDatabase(ctx, async (db, store) => {
    const disabled = await store.createOperatorStore(db).disable(name, actor());
    if (disabled === undefined) throw unknown(name);
    ctx.out.result(shown(disabled));
    ctx.out.note(
      `${name} is disabled and logged out everywhere; \`paykit operators reset ${name}\` enables them again.`,
    );
  });
}

/** `paykit operators role <name> <role>`: their logins take it at their next request. */
export async function operatorsRole(ctx: Context, name: string, role: string): Promise<void> {
  flag(Name, 'NAME', name);
  const to = flag(Role, 'ROLE', role);
  await withDatabase(ctx, async (db, store) => {
    const changed = await store.createOperatorStore(db).setRole(name, to, actor());
    if (changed === undefined) throw unknown(name);
    ctx.out.result(shown(changed));
  });
}

const unknown = (name: string) =>
  new CliError(`No operator named ${name}.`, '`paykit operators list` shows them; `paykit operators add` adds one.');
