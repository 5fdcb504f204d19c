// The tolerant reader. A response that does not match its schema (an extra field, a value in an
// unexpected format, a missing field) is still returned as it came: the platform changed or the
// spec is wrong, and either way failing a payment flow over it helps nobody. The difference is
// reported through a hook so the spec can be corrected; strict mode (for tests) throws instead.
import type { ZodType } from 'zod';
import type { ProductName } from './environments.ts';
import { DriftError } from './errors.ts';
import { isCardCodeField, isCardNumberField } from '@paykit/domain';
import { isSecretField } from './redact.ts';
import { truncate } from '../internal/truncate.ts';

export interface DriftReport {
  product: ProductName;
  operation: string;
  kind: 'extra-field' | 'mismatch' | 'missing-field';
  /** Where in the payload, from its root ([] for the root itself). */
  path: (string | number)[];
  /** What the schema wants ("string (uuid)", "one of \"A\" | \"B\"", "absent: not in the schema"). */
  expected: string;
  /** What arrived, described (type, layout, length), never a long or secret value. */
  seen: string;
}

export interface DriftOptions {
  /** Called once per difference. Exceptions it throws are ignored: reporting never fails a read. */
  onDrift?: (report: DriftReport) => void;
  /** Throw DriftError instead of returning when anything differs (for tests). */
  strict?: boolean;
}

/**
 * Returns `data` unchanged (typed as T). With neither `onDrift` nor `strict` nobody would hear of
 * a difference, so nothing is checked: reading costs nothing. Otherwise every schema mismatch
 * (zod's issues) and every extra field (keys that no object shape of the schema names, through
 * objects, arrays, records, unions and intersections) is reported.
 */
export function readTolerantly<T>(
  schema: ZodType<T>,
  data: unknown,
  ctx: { product: ProductName; operation: string },
  options: DriftOptions = {},
): T {
  const { onDrift, strict = false } = options;
  if (!onDrift && !strict) return data as T;
  const reports = driftReports(schema, data, ctx);
  if (onDrift) {
    for (const report of reports) {
      try {
        onDrift(report);
      } catch {
        // A reporting hook must not turn a readable response into a failure.
      }
    }
  }
  if (strict && reports.length > 0) throw new DriftError(driftMessage(ctx, reports), reports, data);
  return data as T;
}

/** Every difference between `data` and `schema`, without throwing or calling any hook. */
export function driftReports(
  schema: ZodType,
  data: unknown,
  ctx: { product: ProductName; operation: string },
): DriftReport[] {
  const found: Finding[] = [];
  const result = schema.safeParse(data);
  if (!result.success) collectIssues(result.error.issues as unknown as Issue[], [], data, found);
  collectExtras(schema as unknown as Schema, data, [], found, 0);
  const seen = new Set<string>();
  const reports: DriftReport[] = [];
  for (const f of found) {
    const id = `${f.kind}:${JSON.stringify(f.path)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    reports.push({ product: ctx.product, operation: ctx.operation, ...f });
  }
  return reports;
}

/** RFC 6901 JSON Pointer of a report's path: "/data/0/client_secret" ("" for the root). */
export function jsonPointer(path: readonly (string | number)[]): string {
  return path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** "data[0].client_secret" */
export function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

function driftMessage(ctx: { product: ProductName; operation: string }, reports: DriftReport[]): string {
  const shown = reports
    .slice(0, 5)
    .map((r) => `${formatPath(r.path)} ${r.kind}: expected ${r.expected}, saw ${r.seen}`);
  const more = reports.length > 5 ? `; and ${reports.length - 5} more` : '';
  return (
    `${ctx.product} ${ctx.operation}: the response does not match the spec (strict mode), ${reports.length} difference${reports.length === 1 ? '' : 's'}: ` +
    `${shown.join('; ')}${more} — correct the spec (or the sandbox) so both agree`
  );
}

type Finding = Pick<DriftReport, 'kind' | 'path' | 'expected' | 'seen'>;

// ---------------------------------------------------------------------------------------------
// Mismatches: zod's issues, described without values.

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  format?: string;
  pattern?: string;
  values?: unknown[];
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  divisor?: number;
  keys?: string[];
  errors?: Issue[][];
}

function toPath(path: PropertyKey[]): (string | number)[] {
  return path.map((p) => (typeof p === 'number' ? p : String(p)));
}

function collectIssues(issues: Issue[], prefix: (string | number)[], root: unknown, out: Finding[]): void {
  for (const issue of issues) {
    const path = [...prefix, ...toPath(issue.path)];
    if (issue.code === 'invalid_union' && issue.errors && issue.errors.length > 0) {
      // Report the branch that came closest: its few issues say more than "no branch matched".
      const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
      if (closest.length > 0) {
        collectIssues(closest, path, root, out);
        continue;
      }
    }
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      const parent = valueAt(root, path);
      for (const key of issue.keys) {
        out.push({
          kind: 'extra-field',
          path: [...path, key],
          expected: 'absent: not in the schema',
          seen: describe(field(parent, key), key, false),
        });
      }
      continue;
    }
    const last = path[path.length - 1];
    const parent = path.length > 0 ? valueAt(root, path.slice(0, -1)) : undefined;
    // Whatever zod calls it (invalid_type, invalid_value for an enum…), a required key that is not there is missing.
    const missing =
      path.length > 0 &&
      isObject(parent) &&
      (!Object.hasOwn(parent, String(last)) || parent[String(last)] === undefined);
    const value = valueAt(root, path);
    out.push({
      kind: missing ? 'missing-field' : 'mismatch',
      path,
      expected: describeExpected(issue),
      seen: missing ? 'absent' : describe(value, last, issue.code === 'invalid_value'),
    });
  }
}

function describeExpected(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected ?? 'another type';
    case 'invalid_format':
      if (issue.format === 'regex' && issue.pattern) return `string matching ${truncate(issue.pattern, 80)}`;
      return `string (${issue.format ?? 'another format'})`;
    case 'invalid_value':
      return issue.values && issue.values.length > 0
        ? truncate(`one of ${issue.values.map((v) => JSON.stringify(v)).join(' | ')}`, 160)
        : 'another value';
    case 'too_small':
      return `${issue.origin ?? 'value'} ${issue.origin === 'string' || issue.origin === 'array' ? 'length ' : ''}${issue.inclusive === false ? '>' : '>='} ${String(issue.minimum)}`;
    case 'too_big':
      return `${issue.origin ?? 'value'} ${issue.origin === 'string' || issue.origin === 'array' ? 'length ' : ''}${issue.inclusive === false ? '<' : '<='} ${String(issue.maximum)}`;
    case 'not_multiple_of':
      return `a multiple of ${String(issue.divisor)}`;
    case 'invalid_union':
      return 'one of the variants of a union';
    default:
      return truncate(issue.message, 120);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(parent: unknown, key: string | number): unknown {
  if (Array.isArray(parent) && typeof key === 'number') return parent[key];
  if (isObject(parent)) return parent[String(key)];
  return undefined;
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let current = root;
  for (const key of path) {
    current = field(current, key);
    if (current === undefined) return undefined;
  }
  return current;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const ENUM_TOKEN = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;

/** What a value is, never what it holds: a type, a layout of digits, a length. */
export function describeValue(value: unknown, key?: string | number): string {
  return describe(value, key, false);
}

function describe(value: unknown, key: string | number | undefined, showToken: boolean): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  const secret = typeof key === 'string' && (isSecretField(key) || isCardNumberField(key) || isCardCodeField(key));
  if (Array.isArray(value)) return `array (${value.length} item${value.length === 1 ? '' : 's'})`;
  if (typeof value === 'object') {
    if (secret) return 'object';
    const keys = Object.keys(value);
    return keys.length === 0
      ? 'object (empty)'
      : truncate(`object with ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', …' : ''}`, 120);
  }
  if (typeof value === 'number') {
    if (secret) return 'number';
    if (!Number.isFinite(value)) return `number (${String(value)})`;
    if (Number.isInteger(value)) return 'number (integer)';
    const decimals = (String(value).split('.')[1] ?? '').length;
    return `number (${decimals} decimal${decimals === 1 ? '' : 's'})`;
  }
  if (typeof value === 'boolean') return secret ? 'boolean' : `boolean ${value}`;
  if (typeof value !== 'string') return typeof value;
  if (secret) return 'string';
  return describeString(value, showToken);
}

function describeString(text: string, showToken: boolean): string {
  if (text === '') return 'empty string';
  if (UUID.test(text)) return 'string (uuid)';
  if (ISO_DATETIME.test(text))
    return `string (ISO 8601 date-time${/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? ' with offset' : ' without offset'})`;
  if (/^\d+$/.test(text)) return `string of ${text.length} digit${text.length === 1 ? '' : 's'}`;
  // Digits with separators (dates, times, amounts): the layout, digits hidden.
  if (text.length <= 40 && /^[\d\s:.,+\-/TZ]+$/.test(text) && /\d/.test(text))
    return `string "${text.replace(/\d/g, 'd')}"`;
  if (showToken && ENUM_TOKEN.test(text)) return `string "${text}"`;
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) return 'string (email)';
  if (/^https?:\/\/\S+$/i.test(text)) return 'string (URL)';
  return `string (${text.length} char${text.length === 1 ? '' : 's'})`;
}

// ---------------------------------------------------------------------------------------------
// Extra fields: walk the schema alongside the data. Zod 4 keeps each schema's definition in
// `_zod.def`; only the parts read here are typed.

interface Def {
  type: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  options?: Schema[];
  left?: Schema;
  right?: Schema;
  innerType?: Schema;
  in?: Schema;
  getter?: () => Schema;
  valueType?: Schema;
  items?: Schema[];
  rest?: Schema | null;
}

interface Schema {
  _zod: { def: Def };
}

const WRAPPERS = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'nonoptional',
  'readonly',
  'catch',
  'success',
]);

function unwrap(schema: Schema): Schema {
  let current = schema;
  for (let i = 0; i < 64; i++) {
    const def = current._zod.def;
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else if (def.type === 'lazy' && def.getter) current = def.getter();
    else return current;
  }
  return current;
}

/** What an object-like schema says about keys: the shapes naming them, and schemas for any other key. */
interface ObjectView {
  shapes: Record<string, Schema>[];
  /** Schemas other keys are read with (record values, typed catchalls). */
  rest: Schema[];
  /** Other keys are not drift: an open record, an opaque part, a strict object (zod reports those). */
  open: boolean;
}

function objectView(schema: Schema, depth = 0): ObjectView | undefined {
  const s = unwrap(schema);
  const def = s._zod.def;
  if (def.type === 'object' && def.shape) {
    const catchallType = def.catchall ? unwrap(def.catchall)._zod.def.type : undefined;
    const typedRest =
      catchallType !== undefined && catchallType !== 'unknown' && catchallType !== 'any' && catchallType !== 'never';
    return {
      shapes: [def.shape],
      rest: typedRest && def.catchall ? [def.catchall] : [],
      open: typedRest || catchallType === 'never',
    };
  }
  if (def.type === 'record' && def.valueType) return { shapes: [], rest: [def.valueType], open: true };
  if (def.type === 'intersection' && def.left && def.right && depth < 32) {
    const left = objectView(def.left, depth + 1);
    const right = objectView(def.right, depth + 1);
    if (!left && !right) return undefined;
    return {
      shapes: [...(left?.shapes ?? []), ...(right?.shapes ?? [])],
      rest: [...(left?.rest ?? []), ...(right?.rest ?? [])],
      // A side that is not an object (a union, unknown) may name any key: do not call them extra.
      open: !left || !right || left.open || right.open,
    };
  }
  return undefined;
}

function collectExtras(schema: Schema, data: unknown, path: (string | number)[], out: Finding[], depth: number): void {
  if (data === null || typeof data !== 'object' || depth > 64) return;
  const s = unwrap(schema);
  const def = s._zod.def;
  if (def.type === 'array' && def.element) {
    if (!Array.isArray(data)) return;
    for (let i = 0; i < data.length; i++) {
      path.push(i);
      collectExtras(def.element, data[i], path, out, depth + 1);
      path.pop();
    }
    return;
  }
  if (def.type === 'tuple' && def.items) {
    if (!Array.isArray(data)) return;
    for (let i = 0; i < data.length; i++) {
      const item = def.items[i] ?? def.rest ?? undefined;
      if (!item) continue;
      path.push(i);
      collectExtras(item, data[i], path, out, depth + 1);
      path.pop();
    }
    return;
  }
  if (def.type === 'union' && def.options) {
    if (def.options.length === 1 && def.options[0]) return collectExtras(def.options[0], data, path, out, depth + 1);
    // The variant the data fits best is the one with the fewest extra fields.
    let best: Finding[] | undefined;
    for (const option of def.options) {
      const found: Finding[] = [];
      collectExtras(option, data, path, found, depth + 1);
      if (best === undefined || found.length < best.length) best = found;
      if (best.length === 0) break;
    }
    if (best) out.push(...best);
    return;
  }
  const view = objectView(s);
  if (!view || !isObject(data)) return;
  for (const key of Object.keys(data)) {
    const value = data[key];
    let known = false;
    path.push(key);
    for (const shape of view.shapes) {
      const fieldSchema = Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (fieldSchema) {
        known = true;
        collectExtras(fieldSchema, value, path, out, depth + 1);
      }
    }
    if (!known) {
      for (const rest of view.rest) collectExtras(rest, value, path, out, depth + 1);
      if (!view.open)
        out.push({
          kind: 'extra-field',
          path: [...path],
          expected: 'absent: not in the schema',
          seen: describe(value, key, false),
        });
    }
    path.pop();
  }
}
