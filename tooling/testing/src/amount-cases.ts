// The one table of amounts (packages/contracts/fixtures/amounts) that every enforcement of the
// amount rule is checked with, found through @paykit/contracts wherever the test runs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface AmountCase {
  name: string;
  /** The JSON text of body.amount as sent; null when the field is absent. */
  json: string | null;
  valid: boolean;
}

export const AMOUNT_CASES = JSON.parse(
  readFileSync(
    path.join(
      path.dirname(createRequire(import.meta.url).resolve('@paykit/contracts/package.json')),
      'fixtures/amounts/amounts.json',
    ),
    'utf8',
  ),
) as AmountCase[];
