// The CHANGELOG writer `changeset version` uses (.changeset/config.json): an entry is the
// changeset's words with no commit hash in front of a dated change, and the API difference
// `release:api-diff --write` adds is folded into a <details> block that counts it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import changelog, { foldApiSections } from '../src/changelog.ts';
import { formatSpecDiff } from '../src/api-section.ts';
import { REPO_ROOT } from '../src/exec.ts';

const SECTION = formatSpecDiff('specs/core.yaml', {
  level: 'major',
  breaking: ['[Removed] property `rate` in Response 200 content (application/json)'],
  additions: ['[Added] /components/schemas/Fee', '[Added] operation GET /v1/fees'],
  notes: 3,
});

describe('the CHANGELOG writer', () => {
  it('is the one .changeset/config.json names', () => {
    const config = JSON.parse(readFileSync(path.join(REPO_ROOT, '.changeset/config.json'), 'utf8')) as {
      changelog: string;
    };
    expect(path.resolve(REPO_ROOT, '.changeset', config.changelog)).toBe(
      path.join(REPO_ROOT, 'tooling/release/src/changelog.ts'),
    );
  });

  it('writes a dated change with its date first and its lines indented under it', async () => {
    const line = await changelog.getReleaseLine({
      summary: '2099-01-01: fees.\n\n- **Breaking:** `rate` is gone. Migration: read `fee.rate`.',
    });
    expect(line).toBe('- 2099-01-01: fees.\n\n  - **Breaking:** `rate` is gone. Migration: read `fee.rate`.');
  });

  it('folds an API section into <details> with its counts, keeping every line', async () => {
    const line = await changelog.getReleaseLine({ summary: `Fees.\n\n${SECTION}\n\nAfter the section.` });
    expect(line).toBe(
      [
        '- Fees.',
        '',
        '  <details><summary>API changes in specs/core.yaml (major): 1 breaking, 2 added or deprecated, 3 to descriptions, examples or extensions</summary>',
        '',
        '  - Breaking: [Removed] property `rate` in Response 200 content (application/json)',
        '  - [Added] /components/schemas/Fee',
        '  - [Added] operation GET /v1/fees',
        '  - 3 change(s) to descriptions, examples or extensions',
        '',
        '  </details>',
        '',
        '  After the section.',
      ].join('\n'),
    );
  });

  it('leaves text without an API section as it is, and a heading-like line inside prose alone', () => {
    const prose = 'See the API changes in specs/core.yaml (major): below.\n- one';
    expect(foldApiSections(prose)).toBe(prose);
  });

  it('lists the updated dependencies once, without commit hashes', async () => {
    expect(
      await changelog.getDependencyReleaseLine(
        [{ summary: 'a' }, { summary: 'b' }],
        [{ name: '@paykit/runtime', newVersion: '1.0.0' }],
      ),
    ).toBe('- Updated dependencies\n  - @paykit/runtime@1.0.0');
    expect(await changelog.getDependencyReleaseLine([{ summary: 'a' }], [])).toBe('');
  });
});
