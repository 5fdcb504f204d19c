// `paykit operators`, as whoever runs the console gives and takes access: add a viewer and an
// operator (the password piped in, never printed, kept as a scrypt hash), list them, change a
// role, reset a password, disable one; each change is a row of the console's audit trail by this
// user from "cli". A bad name, role or password, a taken name, an unknown operator and a missing
// password are refused with what to do. On a PostgreSQL database of its own where DATABASE_URL is
// set (as in CI), else on PGlite in a folder of its own.
import { userInfo } from 'node:os';
import path from 'node:path';
import { createOperatorStore, openDatabase } from '@paykit/store';
import { describe, expect, it } from 'vitest';
import { cliStore } from './support/cli-store.ts';

const PASSWORD = 'viewer pass phrase 1';
const NEW_PASSWORD = 'a second pass phrase';

describe('paykit operators', () => {
  const store = cliStore('paykit-operators-');
  const paykit = store.paykit;
  const ok = async <T>(args: string[], input?: string): Promise<T> => {
    const run = await paykit(['--json', ...args], input);
    expect(run.code, `paykit ${args.join(' ')}: ${run.stderr}`).toBe(0);
    for (const secret of [PASSWORD, NEW_PASSWORD]) expect(run.stdout + run.stderr).not.toContain(secret);
    return JSON.parse(run.stdout) as T;
  };
  /** The store the CLI wrote, opened after it exited (PGlite is one process per folder). */
  const withStore = async <T>(
    read: (store: ReturnType<typeof createOperatorStore>, db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>,
  ) => {
    const opened = store.opened();
    const db = opened?.db ?? (await openDatabase({ dataDir: path.join(store.dir(), 'store', 'pglite') }));
    try {
      return await read(createOperatorStore(db), db);
    } finally {
      if (!opened) await db.close();
    }
  };
  interface Shown {
    name: string;
    role: string;
    status: string;
  }

  it('adds, lists, changes the role of, resets and disables operators, auditing each change', async () => {
    const empty = await paykit(['operators', 'list']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stderr).toMatch(/No operators: .*paykit operators add <name> --role operator/);

    const first = await paykit(['operators', 'add', 'ana', '--role', 'viewer', '--password-stdin'], `${PASSWORD}\n`);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/serves no page now \(503\) until it is restarted/);
    expect(
      await ok<Shown>(['operators', 'add', 'beto.ruiz', '--role', 'operator', '--password-stdin'], PASSWORD),
    ).toMatchObject({
      name: 'beto.ruiz',
      role: 'operator',
      status: 'active',
    });
    expect(await ok<Shown[]>(['operators', 'list'])).toMatchObject([
      { name: 'ana', role: 'viewer', status: 'active' },
      { name: 'beto.ruiz', role: 'operator', status: 'active' },
    ]);
    expect(await ok<Shown>(['operators', 'role', 'ana', 'operator'])).toMatchObject({ role: 'operator' });
    expect(await ok<Shown>(['operators', 'disable', 'beto.ruiz'])).toMatchObject({ status: 'disabled' });
    expect(await ok<Shown>(['operators', 'reset', 'beto.ruiz', '--password-stdin'], NEW_PASSWORD)).toMatchObject({
      status: 'active',
    });

    await withStore(async (store, db) => {
      // The piped password, one trailing newline dropped, is the one that logs in.
      expect(await store.authenticate('ana', PASSWORD)).toMatchObject({ role: 'operator' });
      expect(await store.authenticate('beto.ruiz', PASSWORD)).toBeUndefined();
      expect(await store.authenticate('beto.ruiz', NEW_PASSWORD)).toMatchObject({ name: 'beto.ruiz' });
      const { rows } = await db.query<{ operator: string; address: string; action: string; target: string }>(
        "SELECT operator, address, action, target FROM console_audit WHERE action LIKE 'operator-%' ORDER BY id",
      );
      const me = userInfo().username;
      expect(rows).toEqual(
        [
          ['operator-add', 'ana'],
          ['operator-add', 'beto.ruiz'],
          ['operator-role', 'ana'],
          ['operator-disable', 'beto.ruiz'],
          ['operator-reset', 'beto.ruiz'],
        ].map(([action, target]) => ({ operator: me, address: 'cli', action, target })),
      );
    });
  }, 240_000);

  it('refuses a bad name, role or password, a taken name, an unknown operator and a missing password', async () => {
    const refusals: [string[], string | undefined, number, RegExp][] = [
      [['operators', 'add', 'Ana', '--role', 'viewer', '--password-stdin'], PASSWORD, 2, /NAME is lower-case letters/],
      [
        ['operators', 'add', 'carla', '--role', 'admin', '--password-stdin'],
        PASSWORD,
        2,
        /--role is viewer .* or operator/,
      ],
      [['operators', 'add', 'carla', '--role', 'viewer', '--password-stdin'], 'short', 2, /use at least 12/],
      [
        ['operators', 'add', 'carla', '--role', 'viewer'],
        undefined,
        2,
        /No terminal to type the password on: .*--password-stdin/,
      ],
      [
        ['operators', 'add', 'ana', '--role', 'viewer', '--password-stdin'],
        PASSWORD,
        2,
        /an operator named ana exists/,
      ],
      [
        ['operators', 'add', 'console', '--role', 'viewer', '--password-stdin'],
        PASSWORD,
        2,
        /CONSOLE_PASSWORD's operator/,
      ],
      [['operators', 'disable', 'nobody'], undefined, 1, /No operator named nobody/],
      [['operators', 'reset', 'nobody', '--password-stdin'], NEW_PASSWORD, 1, /No operator named nobody/],
    ];
    for (const [args, input, code, says] of refusals) {
      const run = await paykit(args, input);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
      expect(run.stderr).toMatch(says);
      expect(run.stderr).not.toContain(PASSWORD);
    }
    expect((await ok<Shown[]>(['operators', 'list'])).map((o) => o.name)).toEqual(['ana', 'beto.ruiz']);
  }, 240_000);
});
