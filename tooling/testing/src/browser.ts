// Browser tests run in Debian's chromium through playwright-core (no browser
// download; `bash scripts/chromium.sh` installs it). Where the browser is required — CI set, or
// PAYKIT_REQUIRE_BROWSER=1 — a missing chromium FAILS the suite; elsewhere the tests are skipped
// with the reason printed. PAYKIT_CHROMIUM names another executable.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { describe, it } from 'vitest';

export const CHROMIUM = process.env.PAYKIT_CHROMIUM || '/usr/bin/chromium';

const flag = (value: string | undefined) =>
  value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
export const BROWSER_REQUIRED = flag(process.env.CI) || flag(process.env.PAYKIT_REQUIRE_BROWSER);

/** describe() when chromium is there; a failing test in its place where it is required; a skip with the reason printed elsewhere. */
export function describeInBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  const reason = `${CHROMIUM} is missing: install it with \`bash scripts/chromium.sh\` (or point PAYKIT_CHROMIUM at a chromium)`;
  if (BROWSER_REQUIRED) {
    describe(name, () => {
      it('has the browser it requires', () => {
        throw new Error(`Chromium is required here (CI or PAYKIT_REQUIRE_BROWSER=1) and ${reason}.`);
      });
    });
    return;
  }
  console.warn(`skipped "${name}": ${reason}; set PAYKIT_REQUIRE_BROWSER=1 to make this a failure.`);
  describe.skip(name, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
