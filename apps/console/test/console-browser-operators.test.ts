// Named operators in headless chromium (browser.ts: a failure, not a skip, where the browser is
// required): a viewer logs in through the form by name and password, reads the parked events with
// no retry button, and an action posted from their own page anyway is refused (403); an operator
// logs in in another browser, clicks the retry, and the audit page shows both: the viewer's refusal
// and the operator's action, each with its name.
import { listParked, reconcileOnce } from '@paykit/ledger';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { createEventStore, createOperatorStore } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { describeInBrowser, launchChromium } from '@paykit/testing/browser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConsoleServer } from '../src/index.ts';
import { startTestConsole } from './test-console.ts';
import { unreadableCredit } from './parked-event.ts';

const VIEWER_PASSWORD = 'viewer pass phrase 1';
const OPERATOR_PASSWORD = 'operator pass phrase 2';

describeInBrowser('named operators in chromium', () => {
  let opened: OpenedTestDatabase;
  let server: ConsoleServer;
  let browser: Browser;

  beforeAll(async () => {
    opened = await testDatabases([ledgerMigrations])[0]!.open();
    const store = createEventStore(opened.db);
    await store.append(unreadableCredit());
    await store.close();
    expect(await reconcileOnce(opened.db)).toMatchObject({ parked: 1 });
    const operators = createOperatorStore(opened.db);
    await operators.add({ name: 'vera', role: 'viewer', password: VIEWER_PASSWORD });
    await operators.add({ name: 'omar', role: 'operator', password: OPERATOR_PASSWORD });
    server = await startTestConsole(opened.db, {
      now: () => new Date('2026-11-22T18:00:00Z'),
      access: { failedLoginDelayMs: 100 },
    });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await opened?.drop();
  });

  /** A browser of its own, logged in through the form as `name`, on the parked events. */
  const logIn = async (name: string, password: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${server.url}/parked`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name=operator]', name);
    await page.fill('input[name=password]', password);
    await Promise.all([page.waitForURL(`${server.url}/parked`), page.click('button[type=submit]')]);
    return page;
  };

  it('shows a viewer no action and refuses the one they post anyway', async () => {
    const page = await logIn('vera', VIEWER_PASSWORD);
    expect(await page.locator('form[action="/parked/retry"]').count()).toBe(0);
    expect(await page.locator('text=operators only').count()).toBeGreaterThan(0);
    // The retry posted anyway with her login's cookies and token (the page's CSP lets no script of
    // the page send it: the browser context's own request does).
    const csrf = await page.locator('form[action="/logout"] input[name=csrf]').getAttribute('value');
    const answer = await page.request.post(`${server.url}/parked/retry`, { form: { csrf: csrf! }, maxRedirects: 0 });
    const status = answer.status();
    expect(await answer.text()).toMatch(/vera is a viewer/);
    expect(status).toBe(403);
    expect((await listParked(opened.db))[0]).toMatchObject({ retry: false });
    await page.context().close();
  });

  it('lets an operator act, and the audit page shows both with their names', async () => {
    const page = await logIn('omar', OPERATOR_PASSWORD);
    await Promise.all([page.waitForURL(`${server.url}/`), page.click('form[action="/parked/retry"] button')]);
    expect((await listParked(opened.db))[0]).toMatchObject({ retry: true });
    await page.goto(`${server.url}/audit?action=retry-parked`);
    const rows = await page.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/omar.*retry-parked.*success/);
    expect(rows[1]).toMatch(/vera.*retry-parked.*refused.*a viewer may not act/);
    await page.context().close();
  });
});
