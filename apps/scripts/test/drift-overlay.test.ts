// The overlay `paykit drift --overlay` writes, applied to the real specs/core.yaml by a small
// Overlay 1.0 applier (dotted and bracketed names, one equality filter): every target resolves to
// exactly one node, and applying the actions makes the spec describe what was delivered.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DriftRecord } from '@paykit/store';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { driftOverlay, jsonPath, type Overlay } from '../src/commands/drift-overlay.ts';

type Node = Record<string, unknown>;
const SPEC = path.resolve(import.meta.dirname, '../../../specs/core.yaml');
const loadSpec = (): Node => parse(readFileSync(SPEC, 'utf8')) as Node;

function record(
  pointer: string,
  kind: string,
  seen: string,
  expected = 'absent: not in the schema',
  count = 3,
): DriftRecord {
  return {
    source: 'core',
    eventType: 'MONEY_IN',
    pointer,
    path: pointer,
    kind,
    count,
    firstSeen: new Date('2026-11-20T10:00:00Z'),
    lastSeen: new Date('2026-11-21T10:00:00Z'),
    example: { seq: '42', expected, seen },
  };
}

/** The nodes a target names, each as its parent and key (so it can be removed). */
function select(doc: Node, target: string): { parent: Node | unknown[]; key: string | number }[] {
  const tokens = [
    ...target.slice(1).matchAll(/\.([A-Za-z_]\w*)|\['((?:[^'\\]|\\.)*)'\]|\[\?\(@ == '((?:[^'\\]|\\.)*)'\)\]/g),
  ];
  expect(tokens.map((t) => t[0]).join('')).toBe(target.slice(1));
  let current: { parent: Node | unknown[]; key: string | number }[] = [{ parent: { $: doc }, key: '$' }];
  for (const t of tokens) {
    const next: typeof current = [];
    for (const { parent, key } of current) {
      const value = (parent as Record<string | number, unknown>)[key];
      if (t[3] !== undefined) {
        const wanted = t[3].replace(/\\(.)/g, '$1');
        if (Array.isArray(value)) value.forEach((v, i) => v === wanted && next.push({ parent: value, key: i }));
      } else {
        const name = t[1] ?? t[2]!.replace(/\\(.)/g, '$1');
        if (typeof value === 'object' && value !== null && name in value)
          next.push({ parent: value as Node, key: name });
      }
    }
    current = next;
  }
  return current;
}

function merge(into: Node, update: Node): void {
  for (const [k, v] of Object.entries(update)) {
    const existing = into[k];
    if (
      typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      typeof existing === 'object' &&
      existing !== null &&
      !Array.isArray(existing)
    )
      merge(existing as Node, v as Node);
    else into[k] = v;
  }
}

function apply(doc: Node, overlay: Overlay): void {
  for (const action of overlay.actions) {
    const found = select(doc, action.target);
    expect(found, action.target).toHaveLength(1);
    const { parent, key } = found[0]!;
    if (action.remove) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
    } else if (action.update) {
      merge((parent as Record<string | number, unknown>)[key] as Node, action.update);
    }
  }
}

describe('paykit drift --overlay', () => {
  it('proposes one action per record, each targeting the component schema that holds the field', () => {
    const doc = loadSpec();
    const records = [
      record('/body/new_field', 'extra-field', 'string (12 chars)'),
      record('/body/registered_at', 'mismatch', 'string "dddd-dd-dd dd:dd"', 'string (datetime)'),
      record('/body/id', 'mismatch', 'string (9 chars)', 'string (uuid)'),
      record('/body/beneficiary_account', 'missing-field', 'absent', 'string', 1),
      record('/extra_top', 'extra-field', 'number (integer)'),
    ];
    const { overlay, unplaced } = driftOverlay(doc, records, {
      specFile: 'core.yaml',
      version: '2026-11-21T10:00:00.000Z',
    });
    expect(unplaced).toEqual([]);
    expect(overlay).toMatchObject({
      overlay: '1.0.0',
      extends: 'core.yaml',
      info: { version: '2026-11-21T10:00:00.000Z' },
    });
    expect(overlay.actions.map((a) => a.target)).toEqual([
      '$.components.schemas.MoneyInBody',
      '$.components.schemas.MoneyInBody.properties.registered_at.format',
      '$.components.schemas.MoneyInBody.properties.id',
      "$.components.schemas.MoneyInBody.required[?(@ == 'beneficiary_account')]",
      '$.components.schemas.MoneyInEvent',
    ]);
    expect(overlay.actions[0]!.description).toContain('3 times');
    apply(doc, overlay);
    const schemas = (doc.components as Node).schemas as Record<string, Node>;
    expect((schemas.MoneyInBody!.properties as Node).new_field).toMatchObject({ type: 'string' });
    expect((schemas.MoneyInEvent!.properties as Node).extra_top).toMatchObject({ type: 'integer' });
    expect(((schemas.MoneyInBody!.properties as Node).registered_at as Node).format).toBeUndefined();
    expect(((schemas.MoneyInBody!.properties as Node).id as Node).description).toMatch(
      /older form\. Also sent as string \(9 chars\) \(the spec says string \(uuid\)\)\.$/,
    );
    expect(schemas.MoneyInBody!.required).not.toContain('beneficiary_account');
  });

  it('returns the records the spec has no place for instead of inventing a target', () => {
    const doc = loadSpec();
    const { overlay, unplaced } = driftOverlay(
      doc,
      [
        record('/body/nowhere/deeper', 'extra-field', 'string (1 char)'),
        { ...record('/x', 'extra-field', 'null'), eventType: 'NOT_AN_EVENT' },
      ],
      { specFile: 'core.yaml', version: 'v' },
    );
    expect(overlay.actions).toEqual([]);
    expect(unplaced).toHaveLength(2);
  });

  it('quotes names JSONPath cannot take bare', () => {
    expect(jsonPath(['webhooks', 'MONEY_IN', 'content', 'application/json', "it's"])).toBe(
      "$.webhooks.MONEY_IN.content['application/json']['it\\'s']",
    );
  });
});
