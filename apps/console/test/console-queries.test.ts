// Every query string the console's links would never make is answered 400 with a message naming
// the parameter and what it allows, never 5xx, over a real socket on each store: sort names that
// are Object.prototype's own (constructor, __proto__, toString…), NUL and other control characters
// in any parameter (a NUL reaching PostgreSQL would answer with the server's own error), days that
// are not days of the calendar (2026-02-30, which PostgreSQL would refuse with its own text), values
// longer than a filter can be, and query strings too long or with too many parameters.
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_LENGTH, MAX_VALUE_LENGTH } from '../src/filters.ts';
import { startTestConsole, type TestConsole } from './test-console.ts';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];
/** Every list that takes ?sort=, as a page and as its export. */
const SORTED = [
  '/items',
  '/receivables',
  '/conflicts',
  '/parked',
  '/drift',
  '/reports',
  '/reports/files',
  '/items.csv',
  '/receivables.json',
  '/conflicts.csv',
  '/parked.json',
  '/drift.csv',
  '/reports.json',
];

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`console query strings (${kind.name})`, () => {
    let opened: OpenedTestDatabase;
    let console_: TestConsole;

    beforeAll(async () => {
      opened = await kind.open();
      console_ = await startTestConsole(opened.db);
    });

    afterAll(async () => {
      await console_?.close();
      await opened?.drop();
    });

    const expect400 = async (path: string, message: RegExp) => {
      const answer = await console_.get(path);
      const what = `${path.slice(0, 80)}: ${answer.text.slice(0, 200)}`;
      expect(answer.status, what).toBe(400);
      expect(answer.type, what).toMatch(/^text\/plain/);
      expect(answer.text, what).toMatch(message);
      return answer.text;
    };

    it('answers a day that is not one of the calendar, with or without the other end of the range, with 400', async () => {
      const days = [
        'to=2026-02-30',
        'from=2026-04-31&to=2026-05-01',
        'from=2026-02-29&to=2026-03-01',
        'to=x',
        'to=2026-13-01',
        'from=2026-11-00',
        'from=0000-01-01&to=2026-11-01',
        'to=2026-1-1',
      ];
      for (const path of ['/', '/items', '/volumes', '/items.csv', '/volumes.json', '/summary.csv'])
        for (const query of days)
          await expect400(`${path}?${query}`, /^(from|to) must be a day of the calendar, YYYY-MM-DD/);
      // A leap day is one.
      expect((await console_.get('/items?from=2028-02-29&to=2028-03-01')).status).toBe(200);
    });

    it("answers an Object.prototype name as a sort key with 400 naming the list's sorts", async () => {
      let tried = 0;
      for (const path of SORTED)
        for (const name of PROTOTYPE_NAMES)
          for (const sort of [name, `-${name}`]) {
            const text = await expect400(`${path}?sort=${encodeURIComponent(sort)}`, /^sort must be one of /);
            expect(text).not.toMatch(/is not a function|could not be read/);
            tried += 1;
          }
      expect(tried).toBe(SORTED.length * PROTOTYPE_NAMES.length * 2);
      // Known sorts still work.
      expect((await console_.get('/items?sort=-amount')).status).toBe(200);
      expect((await console_.get('/reports?sort=fileName')).status).not.toBe(503);
    });

    it('answers a NUL or any other control character, in any parameter, with 400 naming it', async () => {
      const controls = ['\u0000', '\u0001', '\u0008', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u009f'];
      for (const control of controls) {
        const hex = `U+${control.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
        for (const [path, name] of [
          ['/reports', 'file'],
          ['/reports.csv', 'file'],
          ['/items', 'sort'],
          ['/items', 'from'],
          ['/receivables', 'age'],
          ['/conflicts.json', 'kind'],
          ['/drift', 'after'],
          ['/', 'state'],
          ['/parked', 'anything'],
        ] as const) {
          const text = await expect400(
            `${path}?${name}=${encodeURIComponent(`a${control}b`)}`,
            new RegExp(`^"${name}" holds a control character \\(${hex.replace('+', '\\+')}\\)`),
          );
          expect(text).not.toMatch(/invalid byte sequence|0x00|could not be read/);
        }
      }
      await expect400(`/items?${encodeURIComponent('na\u0000me')}=1`, /^the parameter "na\\u0000me" holds a control/);
    });

    it('answers oversized values, query strings and parameter counts with 400 and the limit', async () => {
      await expect400(
        `/reports?file=${'x'.repeat(MAX_VALUE_LENGTH + 1)}`,
        new RegExp(`^"file" is ${MAX_VALUE_LENGTH + 1} characters long: at most ${MAX_VALUE_LENGTH}`),
      );
      await expect400(`/items.csv?sort=${'a'.repeat(1000)}`, /^"sort" is 1000 characters long/);
      await expect400(`/items?after=${'A'.repeat(4001)}`, /^"after" is 4001 characters long: at most 4000/);
      await expect400(
        `/items?state=${'x,'.repeat(MAX_QUERY_LENGTH / 2 + 10)}`,
        /^the query string is \d+ characters long/,
      );
      await expect400(`/items?${'p=1&'.repeat(65)}`, /more than 64 parameters/);
      // At the limits, the filters themselves decide: a long file name matches nothing, a forged cursor is refused.
      expect((await console_.get(`/reports?file=${'x'.repeat(MAX_VALUE_LENGTH)}`)).status).toBe(200);
      await expect400(`/items?after=${'A'.repeat(4000)}`, /page cursor is not one this list gave/);
    });
  });
}
