import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperatorStore, hashPassword, StoreInputError, verifyPassword } from '../src/index.ts';
import type { OperatorStore } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';

const PASSWORD = 'correct horse battery';

describe('operator passwords', () => {
  it('keeps a salted scrypt hash that holds nothing of the password, and verifies only the password itself', async () => {
    const one = await hashPassword(PASSWORD);
    const two = await hashPassword(PASSWORD);
    expect(one).toMatch(/^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
    expect(one).not.toBe(two);
    expect(one).not.toContain('horse');
    expect(await verifyPassword(PASSWORD, one)).toBe(true);
    expect(await verifyPassword(PASSWORD, two)).toBe(true);
    expect(await verifyPassword(`${PASSWORD} `, one)).toBe(false);
    expect(await verifyPassword('correct horse batterx', one)).toBe(false);
    expect(await verifyPassword(PASSWORD, 'md5$abc')).toBe(false);
    expect(await verifyPassword(PASSWORD, one.slice(0, -2))).toBe(false);
  });

  it('refuses a short password, one with edge whitespace and one too long, without repeating it', async () => {
    for (const [password, says] of [
      ['short-pass', 'use at least 12'],
      [' leading space pw', 'whitespace'],
      ['trailing newline\n', 'whitespace'],
      ['x'.repeat(1025), 'at most 1024'],
    ] as const) {
      const refused = await hashPassword(password).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StoreInputError);
      expect((refused as Error).message).toContain(says);
      expect((refused as Error).message).not.toContain(password.trim().slice(0, 8));
    }
  });
});

for (const kind of testDatabases()) {
  describe(`operators on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let operators: OperatorStore;
    beforeAll(async () => {
      opened = await kind.open();
      operators = createOperatorStore(opened.db);
    });
    afterAll(async () => {
      await opened?.drop();
    });

    it('adds an operator with a role, lists them, and never returns nor stores the password', async () => {
      expect(await operators.anyActive()).toBe(false);
      const ana = await operators.add({ name: 'ana.lopez', role: 'operator', password: PASSWORD });
      expect(ana).toMatchObject({ name: 'ana.lopez', role: 'operator', status: 'active', credential: 1 });
      expect(JSON.stringify(ana)).not.toContain('hash');
      await operators.add({ name: 'beto', role: 'viewer', password: 'another long password' });
      expect((await operators.list()).map((o) => [o.name, o.role])).toEqual([
        ['ana.lopez', 'operator'],
        ['beto', 'viewer'],
      ]);
      expect(await operators.anyActive()).toBe(true);
      const { rows } = await opened.db.query<{ password_hash: string }>(
        "SELECT password_hash FROM console_operators WHERE name = 'ana.lopez'",
      );
      expect(rows[0]!.password_hash).toMatch(/^scrypt\$/);
      expect(rows[0]!.password_hash).not.toContain('horse');
    });

    it("refuses a taken name, the password operator's name, a bad name and an unknown role, saying what to do", async () => {
      const refusal = (input: { name: string; role: string; password: string }) =>
        operators.add(input as never).then(
          () => 'added',
          (error: unknown) => (error instanceof StoreInputError ? error.message : `unexpected: ${String(error)}`),
        );
      expect(await refusal({ name: 'ana.lopez', role: 'viewer', password: PASSWORD })).toContain('exists');
      expect(await refusal({ name: 'console', role: 'viewer', password: PASSWORD })).toContain('CONSOLE_PASSWORD');
      for (const name of ['Ana', '1ana', 'ana lopez', 'a'.repeat(65), '', 'ana;drop'])
        expect(await refusal({ name, role: 'viewer', password: PASSWORD })).toContain('lower-case letters');
      expect(await refusal({ name: 'carla', role: 'admin', password: PASSWORD })).toContain('viewer, operator');
    });

    it('authenticates the right password of an active operator only', async () => {
      expect(await operators.authenticate('ana.lopez', PASSWORD)).toMatchObject({
        name: 'ana.lopez',
        role: 'operator',
      });
      expect(await operators.authenticate('ana.lopez', 'wrong password!')).toBeUndefined();
      expect(await operators.authenticate('nobody', PASSWORD)).toBeUndefined();
      expect(await operators.authenticate('NOT A NAME', PASSWORD)).toBeUndefined();
    });

    it('moves the credential on at a reset and a disable (ending logins), and a reset activates again', async () => {
      const before = (await operators.get('beto'))!;
      const disabled = (await operators.disable('beto'))!;
      expect(disabled).toMatchObject({ status: 'disabled', credential: before.credential + 1 });
      // Disabling twice does not move it again.
      expect((await operators.disable('beto'))!.credential).toBe(disabled.credential);
      expect(await operators.authenticate('beto', 'another long password')).toBeUndefined();
      const reset = (await operators.reset('beto', 'a brand new password'))!;
      expect(reset).toMatchObject({ status: 'active', credential: disabled.credential + 1 });
      expect(await operators.authenticate('beto', 'another long password')).toBeUndefined();
      expect(await operators.authenticate('beto', 'a brand new password')).toMatchObject({ name: 'beto' });
      expect(await operators.setRole('beto', 'operator')).toMatchObject({
        role: 'operator',
        credential: reset.credential,
      });
      expect(await operators.disable('nobody')).toBeUndefined();
      expect(await operators.reset('nobody', PASSWORD)).toBeUndefined();
    });

    it('writes each change made by someone to the audit trail in the same statement, and none for nothing changed', async () => {
      const actor = { by: 'root', from: 'cli' };
      await operators.add({ name: 'carla', role: 'viewer', password: PASSWORD }, actor);
      await operators.setRole('carla', 'operator', actor);
      await operators.reset('carla', 'yet another password', actor);
      await operators.disable('carla', actor);
      await operators.disable('nobody', actor);
      await operators.add({ name: 'carla', role: 'viewer', password: PASSWORD }, actor).catch(() => undefined);
      const { rows } = await opened.db.query<{
        operator: string;
        address: string;
        action: string;
        target: string;
        detail: string;
      }>(
        "SELECT operator, address, action, target, detail FROM console_audit WHERE target = 'carla' OR target = 'nobody' ORDER BY id",
      );
      expect(rows).toEqual([
        { operator: 'root', address: 'cli', action: 'operator-add', target: 'carla', detail: 'as viewer' },
        { operator: 'root', address: 'cli', action: 'operator-role', target: 'carla', detail: 'to operator' },
        {
          operator: 'root',
          address: 'cli',
          action: 'operator-reset',
          target: 'carla',
          detail: 'a new password; their logins ended',
        },
        { operator: 'root', address: 'cli', action: 'operator-disable', target: 'carla', detail: 'their logins ended' },
      ]);
    });
  });
}
