// `paykit known-accounts`, as an operator keeps the gateway's accounts in step with the platform:
// add one (ACTIVE), set its owner and limit without changing its status, block, activate and
// cancel it; a CLABE with a wrong control digit, a limit that is no amount and an account that is
// not known are wrong usage (exit 2) with a message that says what to do and never repeats the
// CLABE. On a PostgreSQL database of its own where DATABASE_URL is set (as in CI: each run of the
// CLI opens it in a fraction of PGlite's start-up), else on PGlite in a folder of its own.
import { describe, expect, it } from 'vitest';
import { cliStore } from './support/cli-store.ts';

const CLABE = '646180000000000999';
const MISTYPED = '646180000000000993';

describe('paykit known-accounts', () => {
  const { paykit } = cliStore('paykit-known-');
  const ok = async <T>(args: string[]): Promise<T> => {
    const run = await paykit(['--json', ...args]);
    expect(run.code, `paykit ${args.join(' ')}: ${run.stderr}`).toBe(0);
    return JSON.parse(run.stdout) as T;
  };
  interface Shown {
    clabe: string;
    status: string;
    ownerId: string | null;
    creditLimit: string | null;
  }

  it('adds, updates and changes the status of an account, listing each change', async () => {
    const empty = await paykit(['known-accounts', 'list']);
    expect(empty.code).toBe(0);
    expect(empty.stderr).toMatch(/No known accounts: every credit is held until its account is added/);

    const added = await paykit(['known-accounts', 'add', CLABE, '--owner', 'acme-1']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(/paykit held release <seq>/);
    expect(await ok<Shown[]>(['known-accounts', 'list'])).toMatchObject([
      { clabe: CLABE, status: 'ACTIVE', ownerId: 'acme-1', creditLimit: null },
    ]);

    expect(await ok<Shown>(['known-accounts', 'block', CLABE])).toMatchObject({ status: 'BLOCKED' });
    // Adding it again sets the limit, keeps the owner not given, and does not unblock it.
    expect(await ok<Shown>(['known-accounts', 'add', CLABE, '--credit-limit', '50000.00'])).toMatchObject({
      status: 'BLOCKED',
      ownerId: 'acme-1',
      creditLimit: '50000.00',
    });
    expect(await ok<Shown>(['known-accounts', 'activate', CLABE])).toMatchObject({ status: 'ACTIVE' });
    expect(await ok<Shown>(['known-accounts', 'cancel', CLABE])).toMatchObject({ status: 'CANCELLED' });
    expect((await ok<Shown[]>(['known-accounts', 'list'])).map((a) => a.status)).toEqual(['CANCELLED']);
  }, 180_000);

  it('refuses a mistyped CLABE, a limit that is no amount and an unknown account, changing nothing', async () => {
    const before = await ok<Shown[]>(['known-accounts', 'list']);
    const mistyped = await paykit(['known-accounts', 'add', MISTYPED]);
    expect(mistyped.code).toBe(2);
    expect(mistyped.stderr).toMatch(/CLABE is not a valid CLABE: the CLABE's control digit/);
    expect(mistyped.stderr).not.toContain(MISTYPED);

    const limit = await paykit(['known-accounts', 'add', CLABE, '--credit-limit', '50000']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/--credit-limit has no decimals/);

    const unknown = await paykit(['known-accounts', 'block', '646180000000000012']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/not a known account: `paykit known-accounts list` shows them/);
    expect(unknown.stderr).not.toContain('646180000000000012');

    expect(await ok<Shown[]>(['known-accounts', 'list'])).toEqual(before);
  }, 180_000);
});
