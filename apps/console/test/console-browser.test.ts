// The console with a login, in headless chromium (browser.ts: a failure, not a skip, where the
// browser is required): a wrong password refused and the right one let in; a form posted without
// its CSRF token, and one posted by another site's page, refused with 403 while the console's own
// button works; every page rendered under the content security policy with its stylesheet, and
// another site's frame of it refused; an export downloaded through the browser's login; the item
// list followed page by page over its rel="next" links until every seeded row was seen once;
// at 1280 px and at a phone's 390 px nothing is wider than the screen, ids are cut short with the
// whole id on hover, a moment stays on one line, and on the phone each row is a card whose amount
// shows beside its column's name; screenshots of the overview at both
// widths, the first screenful of each (screenshots/, git-ignored; the README's copies in docs/
// with PAYKIT_UPDATE_SCREENSHOTS=1).
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createTransactionRecorder, listParked, reconcileOnce } from '@paykit/ledger';
import { createEventStore } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConsoleServer } from '../src/index.ts';
import { startTestConsole } from './test-console.ts';
import { describeInBrowser, launchChromium } from '@paykit/testing/browser';
import { unreadableCredit } from './parked-event.ts';

const PASSWORD = TEST_SECRETS.consolePassword;
/** More transfers than one page of the item list holds. */
const SEEDED = 520;
const RANGE = 'from=2026-11-01&to=2026-11-30';
// Outside test/: a file written there would change the hash of the tests' own turbo task.
const SCREENSHOTS = path.join(import.meta.dirname, '../screenshots');
/** The README's screenshots, rewritten from a run with PAYKIT_UPDATE_SCREENSHOTS=1. */
const README_SHOTS = path.join(import.meta.dirname, '../docs');

describeInBrowser('the console in chromium, behind its login', () => {
  let opened: OpenedTestDatabase;
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let attacker: Server;
  const seeded = new Set<string>();

  beforeAll(async () => {
    opened = await testDatabases([ledgerMigrations])[0]!.open();
    const record = createTransactionRecorder(opened.db);
    for (let i = 0; i < SEEDED; i += 1) {
      const id = randomUUID();
      seeded.add(id);
      await record({
        operation: 'createMoneyOut',
        transaction: {
          id,
          amount: `${1000 + i}.50`,
          trackingId: `PK2026112000${String(i).padStart(8, '0')}`,
          subCategory: 'SPEI_DEBIT',
          audit: { createdAt: '2026-11-20T16:00:00Z' },
          destinationInstrument: { instrumentDetail: { clabeNumber: '012180000045678907' } },
        },
      });
    }
    const store = createEventStore(opened.db);
    await store.append(unreadableCredit());
    await store.close();
    expect(await reconcileOnce(opened.db)).toMatchObject({ parked: 1 });
    server = await startTestConsole(opened.db, {
      now: () => new Date('2026-11-22T18:00:00Z'),
      access: { password: PASSWORD, failedLoginDelayMs: 100 },
    });
    // Another site (another origin) whose page posts to the console as soon as it opens, or frames it.
    attacker = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        req.url === '/frame'
          ? `<iframe src="${server.url}/?${RANGE}" style="opacity:0.01"></iframe>`
          : `<form id="f" method="post" action="${server.url}/parked/retry"><input name="csrf" value="guessed"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await server?.close();
    await opened?.drop();
  });

  it('refuses a wrong password and lets the right one in', async () => {
    await page.goto(`${server.url}/?${RANGE}`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name=password]', 'not-the-password');
    await page.click('button[type=submit]');
    // expect.poll's default second is too short for chromium on two loaded cores.
    await expect.poll(() => page.locator('[role=alert]').textContent(), { timeout: 60_000 }).toBe('Wrong password.');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect((await context.cookies()).map((c) => c.name)).not.toContain('paykit_console');

    await page.fill('input[name=password]', PASSWORD);
    await Promise.all([page.waitForURL(`${server.url}/?${RANGE}`), page.click('button[type=submit]')]);
    const session = (await context.cookies()).find((c) => c.name === 'paykit_console');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false });
    expect(await page.locator('form[action="/logout"] button').textContent()).toBe('Log out');
  });

  it('refuses a form without its CSRF token, and one another site posts, with 403', async () => {
    await page.goto(`${server.url}/?${RANGE}`);
    await page.locator('form[action="/parked/retry"] input[name=csrf]').evaluate((input) => input.remove());
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/parked/retry')),
      page.click('form[action="/parked/retry"] button'),
    ]);
    expect(refused.status()).toBe(403);
    expect(await page.locator('body').textContent()).toMatch(/no valid CSRF token/);

    const other = await context.newPage();
    const address = attacker.address() as AddressInfo;
    const [crossSite] = await Promise.all([
      other.waitForResponse((r) => r.url().endsWith('/parked/retry')),
      other.goto(`http://localhost:${address.port}/`),
    ]);
    expect(crossSite.status()).toBe(403);
    expect(await crossSite.text()).toMatch(/^Refused: /);
    await other.close();
    expect((await listParked(opened.db))[0]).toMatchObject({ retry: false });

    await page.goto(`${server.url}/?${RANGE}`);
    await Promise.all([page.waitForURL(`${server.url}/`), page.click('form[action="/parked/retry"] button')]);
    expect((await listParked(opened.db))[0]).toMatchObject({ retry: true });
  });

  it('downloads an export through the browser session', async () => {
    await page.goto(`${server.url}/?${RANGE}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.evaluate((href) => {
        const link = Object.assign(document.createElement('a'), { href, download: '' });
        document.body.append(link);
        link.click();
      }, `/items.csv?${RANGE}&state=orphan&limit=10000`),
    ]);
    expect(download.suggestedFilename()).toBe('items.csv');
    const lines = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\n');
    expect(lines[0]).toMatch(/^kind,id,/);
    expect(lines).toHaveLength(SEEDED + 1);
  });

  it('follows rel="next" over the item list until every row was seen once', async () => {
    await page.goto(`${server.url}/?${RANGE}&state=orphan`);
    const seen: string[] = [];
    let pages = 0;
    for (;;) {
      pages += 1;
      const rows = await page.locator('[data-table="items"] tbody tr').allTextContents();
      seen.push(...[...seeded].filter((id) => rows.some((row) => row.includes(id))));
      const next = page.locator('a[rel="next"]').first();
      if ((await next.count()) === 0) break;
      expect(pages, 'the list never ends').toBeLessThan(SEEDED);
      const current = page.url();
      await Promise.all([page.waitForURL((url) => url.href !== current), next.click()]);
    }
    expect(pages, 'the list shows every row on one page or has no rel="next" link').toBeGreaterThan(1);
    expect(seen).toHaveLength(SEEDED);
    expect(new Set(seen).size).toBe(SEEDED);
  });

  it('renders every page under its content security policy, and refuses to be framed by another site', async () => {
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    for (const path of ['/', '/items', '/volumes', '/receivables', '/conflicts', '/parked', '/drift', '/reports']) {
      await page.goto(`${server.url}${path}?${RANGE}`);
      // The stylesheet applied: the header's background is the console's, not the browser's default.
      expect(await page.locator('header').evaluate((h) => getComputedStyle(h).backgroundColor), path).toBe(
        'rgb(246, 248, 250)',
      );
    }
    expect(refused).toEqual([]);

    const other = await context.newPage();
    const messages: string[] = [];
    other.on('console', (message) => messages.push(message.text()));
    const address = attacker.address() as AddressInfo;
    await other.goto(`http://localhost:${address.port}/frame`);
    await expect
      .poll(() => messages.some((m) => /frame-ancestors 'none'|X-Frame-Options/.test(m)), { timeout: 60_000 })
      .toBe(true);
    const framed = other.frames().find((frame) => frame !== other.mainFrame());
    expect(await framed?.locator('form[action="/parked/retry"]').count()).toBe(0);
    await other.close();
  });

  it("reads at 1280 px and at a phone's 390 px, nothing wider than the screen, rows as cards on the phone (screenshots)", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const route of [`/?${RANGE}`, `/items?${RANGE}&state=orphan`]) {
        await page.goto(`${server.url}${route}`);
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth),
          `${route} at ${width} px`,
        ).toBeLessThanOrEqual(width);
      }
      // The amount of the first row on the screen, with its column's name beside it on the phone.
      const amount = page.locator('[data-table="items"] tbody tr').first().locator('td[data-label="amount"]');
      const box = (await amount.boundingBox())!;
      expect(box.x + box.width, `the amount at ${width} px`).toBeLessThanOrEqual(width);
      expect(await amount.textContent()).toMatch(/^MXN [\d,]+\.\d{2}$/);
      const label = await amount.evaluate((td) => getComputedStyle(td, '::before').content);
      expect(label).toBe(width === 390 ? '"amount"' : 'none');
      // A transaction id: cut short on screen with the whole id on hover and in the text.
      const id = await page
        .locator('[data-table="items"] tbody tr')
        .first()
        .locator('td.id span')
        .evaluate((span: HTMLElement) => ({
          text: span.textContent,
          title: span.title,
          cut: span.scrollWidth > span.clientWidth,
          width: span.getBoundingClientRect().width,
        }));
      expect(seeded.has(id.text!), `a seeded id at ${width} px`).toBe(true);
      expect(id, `the id cell at ${width} px`).toMatchObject({ title: id.text, cut: true });
      expect(id.width).toBeLessThan(150);
      // Days and moments on one line: text wrapped mid-value has a box per line.
      const lines = (time: Element) => {
        const range = document.createRange();
        range.selectNodeContents(time);
        return range.getClientRects().length;
      };
      expect(await page.locator('td[data-label="day"] time').first().evaluate(lines), `a day at ${width} px`).toBe(1);
      await page.goto(`${server.url}/parked`);
      expect(await page.locator('td.t time').first().evaluate(lines), `the parked-at time at ${width} px`).toBe(1);
      for (const [name, route] of [
        ['overview', `/?${RANGE}`],
        ['items', `/items?${RANGE}&state=orphan`],
      ] as const) {
        await page.goto(`${server.url}${route}`);
        const file = path.join(SCREENSHOTS, `console-${name}-${width}.png`);
        await page.screenshot({ path: file });
        expect(statSync(file).size, file).toBeGreaterThan(10_000);
        expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
        // PAYKIT_UPDATE_SCREENSHOTS=1: the README's copies (docs/), taken from this run.
        if (process.env.PAYKIT_UPDATE_SCREENSHOTS === '1')
          copyFileSync(file, path.join(README_SHOTS, path.basename(file)));
      }
    }
  });
});
