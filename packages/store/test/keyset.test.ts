// Keyset paging refuses what the database would answer with its own error, as StoreInputError (a
// 400 for the console): a sort name found only on Object.prototype, a NUL in a text parameter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreInputError } from '../src/errors.ts';
import { allRows, keysetPage, pickOrder, type KeyColumn, type KeysetQuery } from '../src/keyset.ts';
import { testDatabases, type OpenedTestDatabase } from '../src/testing.ts';

const SORTS: Record<string, readonly KeyColumn[]> = {
  name: [{ expr: 'x', type: 'text' }],
};

describe('pickOrder', () => {
  it('finds a sort among the list’s own sorts only', () => {
    expect(pickOrder(SORTS, '-name', 'name')).toEqual({ name: '-name', order: { keys: SORTS.name, desc: true } });
    expect(pickOrder(SORTS, undefined, 'name').order.desc).toBe(false);
    for (const name of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'nope'])
      for (const sort of [name, `-${name}`]) {
        expect(() => pickOrder(SORTS, sort, 'name'), sort).toThrow(StoreInputError);
        expect(() => pickOrder(SORTS, sort, 'name'), sort).toThrow(
          'sort must be one of name (a leading "-" sorts descending)',
        );
      }
  });
});

for (const kind of testDatabases()) {
  describe(`keyset parameters (${kind.name})`, () => {
    let opened: OpenedTestDatabase;
    beforeAll(async () => {
      opened = await kind.open();
    });
    afterAll(async () => {
      await opened?.drop();
    });

    const query = (value: unknown): KeysetQuery => ({
      select: 'x',
      from: "(VALUES ('a'), ('b')) AS t(x)",
      where: 'x <> $1',
      params: [value],
    });
    const order = pickOrder(SORTS, 'name', 'name').order;

    it('reads a page, and refuses a NUL in a text parameter before the database sees it', async () => {
      expect((await keysetPage<{ x: string }>(opened.db, query('a'), order)).rows).toEqual([{ x: 'b' }]);
      await expect(keysetPage(opened.db, query('a\u0000b'), order)).rejects.toThrow(/NUL character \(U\+0000\)/);
      await expect(keysetPage(opened.db, query(['a', 'b\u0000']), order)).rejects.toBeInstanceOf(StoreInputError);
      await expect(allRows(opened.db, query('\u0000'), order).next()).rejects.toBeInstanceOf(StoreInputError);
    });
  });
}
