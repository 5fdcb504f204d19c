// The API difference between two revisions of a spec, and the changeset level it needs.
import { describe, expect, it } from 'vitest';
import { covers, highest, says, specDiff, unwritten } from '../src/api-diff.ts';
import { formatSpecDiff } from '../src/api-section.ts';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function base(): Doc {
  return {
    openapi: '3.1.0',
    info: { title: 'Core', version: '2026-05-07' },
    paths: {
      '/v1/transactions/money_out': {
        post: {
          operationId: 'moneyOut',
          description: 'Sends money.',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/MoneyOut' } } },
          },
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Transaction' } } },
            },
            '409': { description: 'conflict' },
          },
        },
      },
      '/v1/accounts/{id}/block': {
        patch: {
          operationId: 'block',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
    components: {
      schemas: {
        MoneyOut: {
          type: 'object',
          required: ['amount'],
          properties: { amount: { type: 'string' }, description: { type: 'string' } },
        },
        Transaction: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            status: { type: 'string', enum: ['PENDING', 'LIQUIDATED', 'REJECTED'] },
          },
        },
      },
    },
  };
}

const changed = (edit: (doc: Doc) => void): Doc => {
  const doc = base();
  edit(doc);
  return doc;
};

describe('specDiff', () => {
  it('finds nothing between a document and itself', () => {
    expect(specDiff(base(), base())).toEqual({ level: null, breaking: [], additions: [], notes: 0 });
  });

  it.each([
    ['an operation removed', (d: Doc) => delete d.paths['/v1/accounts/{id}/block']],
    ['a response field removed', (d: Doc) => delete d.components.schemas.Transaction.properties.status],
    [
      'an enum value removed',
      (d: Doc) => (d.components.schemas.Transaction.properties.status.enum = ['PENDING', 'LIQUIDATED']),
    ],
    ['a status code removed', (d: Doc) => delete d.paths['/v1/transactions/money_out'].post.responses['409']],
    [
      'a parameter made required',
      (d: Doc) => (d.paths['/v1/transactions/money_out'].post.parameters[0].required = true),
    ],
    ['a request field made required', (d: Doc) => d.components.schemas.MoneyOut.required.push('description')],
    ['a type changed', (d: Doc) => (d.components.schemas.MoneyOut.properties.amount = { type: 'number' })],
  ])('calls %s breaking: a major release', (_, edit) => {
    const diff = specDiff(base(), changed(edit));
    expect(diff.level).toBe('major');
    expect(diff.breaking.length).toBeGreaterThan(0);
  });

  it.each([
    [
      'an operation added',
      (d: Doc) =>
        (d.paths['/v1/accounts/{id}/activate'] = {
          patch: { operationId: 'activate', responses: { '200': { description: 'ok' } } },
        }),
    ],
    [
      'an optional request field added',
      (d: Doc) => (d.components.schemas.MoneyOut.properties.reference = { type: 'string' }),
    ],
  ])('calls %s new surface: a minor release', (_, edit) => {
    const diff = specDiff(base(), changed(edit));
    expect(diff).toMatchObject({ level: 'minor', breaking: [] });
    expect(diff.additions.length).toBeGreaterThan(0);
  });

  it('calls a description or an example a patch', () => {
    const diff = specDiff(
      base(),
      changed((d) => (d.paths['/v1/transactions/money_out'].post.description = 'Sends money once.')),
    );
    expect(diff).toMatchObject({ level: 'patch', breaking: [], additions: [] });
    expect(diff.notes).toBeGreaterThan(0);
  });

  it('says each breaking change in a line the CHANGELOG can carry', () => {
    const diff = specDiff(
      base(),
      changed((d) => delete d.paths['/v1/accounts/{id}/block']),
    );
    const text = formatSpecDiff('specs/core.yaml', diff);
    expect(text.split('\n')[0]).toBe('API changes in specs/core.yaml (major):');
    expect(text).toMatch(/- Breaking: .*\/v1\/accounts\/\{id\}\/block/);
  });
});

describe('levels', () => {
  it('orders patch < minor < major', () => {
    expect(highest(['patch', 'major', 'minor'])).toBe('major');
    expect(highest(['none'])).toBeUndefined();
    expect(covers('major', 'minor')).toBe(true);
    expect(covers('patch', 'major')).toBe(false);
    expect(covers(undefined, 'patch')).toBe(false);
  });
});

describe('what a changeset already says', () => {
  const line = '[Added] /components/schemas/MoneyOutRequest/required/1';

  it('is a line of its own, or one ending with the line after a space; never a part of a longer line', () => {
    expect(says(`Text.\n\n- ${line}\n`, line)).toBe(true);
    expect(says(`- Breaking: ${line}`, line)).toBe(true);
    expect(says(`- ${line}0`, line)).toBe(false);
    expect(says(`- ${line} and more`, line)).toBe(false);
  });

  it("is left out of what is still to write, with the notes the same spec's sections already count", () => {
    const diff = {
      level: 'major' as const,
      breaking: ['[Removed] a'],
      additions: ['[Added] b', '[Added] c'],
      notes: 5,
    };
    const written = [
      'Summary.\n\nAPI changes in specs/core.yaml (major):\n- Breaking: [Removed] a\n- [Added] b\n- 3 change(s) to descriptions, examples or extensions',
      'API changes in specs/cash.yaml (patch):\n- 9 change(s) to descriptions, examples or extensions',
    ];
    expect(unwritten('specs/core.yaml', diff, written, { countNotes: true })).toEqual({
      level: 'minor',
      breaking: [],
      additions: ['[Added] c'],
      notes: 2,
    });
    expect(unwritten('specs/core.yaml', diff, written, { countNotes: false }).notes).toBe(5);
    expect(
      unwritten('specs/core.yaml', { ...diff, additions: ['[Added] b'], notes: 3 }, written, { countNotes: true })
        .level,
    ).toBeNull();
  });
});
