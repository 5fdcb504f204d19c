import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { driftReports, formatPath, jsonPointer, readTolerantly, type DriftReport } from '../src/core/drift.ts';
import { DriftError } from '../src/core/errors.ts';

// Shaped like the generated schemas (z.looseObject, .and() for allOf, z.union for oneOf).
const zCard = z.looseObject({ cardNumber: z.string(), expirationDate: z.string().nullish(), holderName: z.string() });
const zClabe = z.looseObject({
  accountNumber: z.string(),
  clabeNumber: z.string().regex(/^\d{18}$/),
  holderName: z.string(),
});
const zInstrument = z.looseObject({ id: z.uuid().optional(), instrumentDetail: z.union([zCard, zClabe]).optional() });
const zTransaction = z.looseObject({
  id: z.uuid(),
  amount: z.string().regex(/^\d+\.\d{2}$/),
  currency: z.enum(['MXN']),
  transactionStatus: z.enum(['INITIALIZED', 'IN_PROGRESS', 'LIQUIDATED']),
  destinationInstrument: zInstrument.optional(),
  metadata: z.looseObject({
    dataCep: z.looseObject({
      status: z.enum(['INITIALIZED', 'PENDING']).optional(),
      createdAt: z.iso.datetime({ offset: true }).optional(),
    }),
  }),
  description: z.string().optional().default('Penny Validation'),
});
const zCredentialList = z.looseObject({
  data: z.array(z.looseObject({ client_id: z.uuid(), client_secret: z.string() })),
});
const zCashEvent = z
  .looseObject({ operation_id: z.int(), amount: z.int() })
  .and(z.looseObject({ event: z.string(), processed_at: z.string() }));

const ctx = { product: 'core' as const, operation: 'createPennyValidation' };
const valid = () => ({
  id: '3f2b6c1e-8a4d-4e5f-9b0a-1c2d3e4f5a6b',
  amount: '0.01',
  currency: 'MXN',
  transactionStatus: 'INITIALIZED',
  destinationInstrument: {
    id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    instrumentDetail: { accountNumber: '180000000012', clabeNumber: '646180000000000012', holderName: 'ACME' },
  },
  metadata: { dataCep: { status: 'INITIALIZED', createdAt: '2026-05-07T12:00:00-06:00' } },
});

function collect(schema: z.ZodType, data: unknown, product: DriftReport['product'] = 'core'): DriftReport[] {
  const reports: DriftReport[] = [];
  readTolerantly(schema, data, { product, operation: ctx.operation }, { onDrift: (r) => reports.push(r) });
  return reports;
}

describe('readTolerantly', () => {
  it('returns the data itself, unchanged (no defaults filled in), and reports nothing when it matches', () => {
    const data = valid();
    const reports: DriftReport[] = [];
    const out = readTolerantly(zTransaction, data, ctx, { onDrift: (r) => reports.push(r), strict: false });
    expect(out).toBe(data);
    expect('description' in out).toBe(false);
    expect(reports).toEqual([]);
    expect(readTolerantly(zTransaction, data, ctx, { strict: true })).toBe(data);
  });

  it('checks nothing when nobody listens (no onDrift, not strict)', () => {
    let parsed = 0;
    const spy = z.looseObject({ a: z.string() }).refine(() => {
      parsed++;
      return true;
    });
    const data = { a: 1, extra: true };
    expect(readTolerantly(spy, data, ctx)).toBe(data);
    expect(parsed).toBe(0);
  });

  it('reports extra fields at any depth: nested objects, arrays, the matching union variant, both sides of .and()', () => {
    const data = valid() as Record<string, unknown>;
    data.routing = 'INT';
    (data.metadata as { dataCep: Record<string, unknown> }).dataCep.cepUrl = 'https://cep.example/1';
    (
      (data.destinationInstrument as Record<string, Record<string, unknown>>).instrumentDetail as Record<
        string,
        unknown
      >
    ).bankCode = '646';
    expect(collect(zTransaction, data)).toEqual([
      {
        product: 'core',
        operation: ctx.operation,
        kind: 'extra-field',
        path: ['destinationInstrument', 'instrumentDetail', 'bankCode'],
        expected: 'absent: not in the schema',
        seen: 'string of 3 digits',
      },
      {
        product: 'core',
        operation: ctx.operation,
        kind: 'extra-field',
        path: ['metadata', 'dataCep', 'cepUrl'],
        expected: 'absent: not in the schema',
        seen: 'string (URL)',
      },
      {
        product: 'core',
        operation: ctx.operation,
        kind: 'extra-field',
        path: ['routing'],
        expected: 'absent: not in the schema',
        seen: 'string (3 chars)',
      },
    ]);

    const list = {
      data: [{ client_id: '3f2b6c1e-8a4d-4e5f-9b0a-1c2d3e4f5a6b', client_secret: 'x', rotated_at: null }],
      has_more: false,
    };
    expect(collect(zCredentialList, list).map((r) => [r.path, r.seen])).toEqual([
      [['data', 0, 'rotated_at'], 'null'],
      [['has_more'], 'boolean false'],
    ]);

    const event = {
      operation_id: 7,
      amount: 100,
      event: 'webhook.paid.success',
      processed_at: '2026-05-07T18:00:00Z',
      reference: '12345678901234567890',
    };
    expect(collect(zCashEvent, event, 'cash').map((r) => [r.kind, r.path, r.seen])).toEqual([
      ['extra-field', ['reference'], 'string of 20 digits'],
    ]);
  });

  it('reports a value in another format: expected vs seen, without the value', () => {
    const data = {
      ...valid(),
      id: 'tx-42',
      amount: 0.01,
      metadata: { dataCep: { createdAt: '2026-05-07 12:00:00.000000' } },
    };
    const reports = collect(zTransaction, data);
    expect(reports.map((r) => [r.kind, r.path, r.expected, r.seen])).toEqual([
      ['mismatch', ['id'], 'string (uuid)', 'string (5 chars)'],
      ['mismatch', ['amount'], 'string', 'number (2 decimals)'],
      ['mismatch', ['metadata', 'dataCep', 'createdAt'], 'string (datetime)', 'string "dddd-dd-dd dd:dd:dd.dddddd"'],
    ]);
  });

  it('reports a missing required field, a new enum value, and the closest union variant', () => {
    const data = valid() as Record<string, unknown>;
    delete data.currency;
    data.transactionStatus = 'PROCESSING';
    data.destinationInstrument = {
      instrumentDetail: { accountNumber: '1', clabeNumber: '6461800000000000', holderName: 'A' },
    };
    expect(collect(zTransaction, data).map((r) => [r.kind, r.path, r.expected, r.seen])).toEqual([
      ['missing-field', ['currency'], 'one of "MXN"', 'absent'],
      ['mismatch', ['transactionStatus'], 'one of "INITIALIZED" | "IN_PROGRESS" | "LIQUIDATED"', 'string "PROCESSING"'],
      [
        'mismatch',
        ['destinationInstrument', 'instrumentDetail', 'clabeNumber'],
        'string matching /^\\d{18}$/',
        'string of 16 digits',
      ],
    ]);
  });

  it('never prints a secret or a long value in seen', () => {
    const longName = 'Juan Pérez García de la Concepción y Todos los Santos del Norte';
    const schema = z.looseObject({
      client_secret: z.uuid(),
      token: z.number(),
      holder: z.enum(['A', 'B']),
      api_key: z.enum(['A']),
    });
    const reports = collect(schema, {
      client_secret: 'super-secret-value-123',
      token: 'eyJhbGciOi.payload.sig',
      holder: longName,
      api_key: 'key_live_value',
    });
    expect(reports.map((r) => r.seen)).toEqual(['string', 'string', `string (${longName.length} chars)`, 'string']);
    const shown = JSON.stringify(reports);
    for (const value of ['super-secret-value-123', 'eyJhbGciOi', 'Juan', 'key_live_value'])
      expect(shown).not.toContain(value);
  });

  it('treats records and unknown bodies as open (no extra fields), and a strict object through zod', () => {
    expect(collect(z.record(z.string(), z.unknown()), { anything: 1 })).toEqual([]);
    expect(collect(z.unknown(), { anything: 1 })).toEqual([]);
    const strict = z.strictObject({ a: z.string() });
    expect(collect(strict, { a: 'x', b: 1 }).map((r) => [r.kind, r.path])).toEqual([['extra-field', ['b']]]);
    const record = z.record(z.string(), z.looseObject({ n: z.number() }));
    expect(collect(record, { k: { n: 1, extra: 'x' } }).map((r) => r.path)).toEqual([['k', 'extra']]);
  });

  it('strict mode throws DriftError with every report, still calling onDrift', () => {
    const data = { ...valid(), amount: '1', surprise: { nested: true } };
    const heard: DriftReport[] = [];
    let thrown: unknown;
    try {
      readTolerantly(zTransaction, data, ctx, { strict: true, onDrift: (r) => heard.push(r) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DriftError);
    const drift = thrown as DriftError;
    expect(drift.reports.map((r) => [r.kind, r.path])).toEqual([
      ['mismatch', ['amount']],
      ['extra-field', ['surprise']],
    ]);
    expect(heard).toEqual(drift.reports);
    expect(drift.message).toBe(
      'core createPennyValidation: the response does not match the spec (strict mode), 2 differences: ' +
        'amount mismatch: expected string matching /^\\d+\\.\\d{2}$/, saw string of 1 digit; ' +
        'surprise extra-field: expected absent: not in the schema, saw object with nested — correct the spec (or the sandbox) so both agree',
    );
  });

  it('a throwing onDrift does not fail the read', () => {
    const data = { ...valid(), extra: 1 };
    expect(
      readTolerantly(zTransaction, data, ctx, {
        onDrift: () => {
          throw new Error('hook broken');
        },
      }),
    ).toBe(data);
  });

  it('driftReports and formatPath', () => {
    expect(
      driftReports(z.array(z.looseObject({ a: z.int() })), [{ a: 1 }, { a: 1.5 }], ctx).map((r) => [
        formatPath(r.path),
        r.expected,
        r.seen,
      ]),
    ).toEqual([['[1].a', 'int', 'number (1 decimal)']]);
    expect(formatPath([])).toBe('(root)');
    expect(formatPath(['data', 0, 'client-id'])).toBe('data[0]["client-id"]');
  });
});

describe('one unexpected field is one report', () => {
  it('once, wherever the field sits: inside a union branch, an intersection, a strict object or the root', () => {
    const inUnion = valid();
    (inUnion.destinationInstrument.instrumentDetail as Record<string, unknown>).newField = 'x';
    const cases: [z.ZodType, unknown, string][] = [
      [zTransaction, { ...valid(), newField: 'x' }, '/newField'],
      [zTransaction, inUnion, '/destinationInstrument/instrumentDetail/newField'],
      [
        zCashEvent,
        { operation_id: 1, amount: 5, event: 'cash.paid', processed_at: '2026-05-07', newField: 'x' },
        '/newField',
      ],
      [z.strictObject({ id: z.string() }), { id: 'a', newField: 'x' }, '/newField'],
    ];
    for (const [schema, data, pointer] of cases) {
      const reports = collect(schema, data);
      expect(reports, pointer).toHaveLength(1);
      expect(reports[0]!.kind).toBe('extra-field');
      expect(jsonPointer(reports[0]!.path)).toBe(pointer);
    }
  });

  it('writes paths as RFC 6901 pointers', () => {
    expect(jsonPointer([])).toBe('');
    expect(jsonPointer(['data', 0, 'client_secret'])).toBe('/data/0/client_secret');
    expect(jsonPointer(['a/b', 'c~d'])).toBe('/a~1b/c~0d');
  });
});
