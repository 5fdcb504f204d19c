// Hostile bodies: random JSON, a valid event with one field of the wrong type or missing, huge
// strings and arrays, deep nesting, invalid UTF-8, not JSON, empty, over the limit.
import fc from 'fast-check';
import type { Json } from './json.ts';

export const BODY_FAMILIES = [
  'valid',
  'random-json',
  'random-object',
  'wrong-type',
  'missing-field',
  'huge-string',
  'huge-array',
  'deep',
  'invalid-utf8',
  'not-json',
  'empty',
  'oversize',
] as const;
export type BodyFamily = (typeof BODY_FAMILIES)[number];

export interface FuzzBody {
  family: BodyFamily;
  bytes: Buffer;
}

/** Every place in an object a value sits (objects are walked, arrays are leaves). */
export function fieldPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...fieldPaths(child, [...prefix, key])]);
}

/** A deep copy of `base` with the value at `path` replaced (or removed, for `undefined`). */
function withField(base: Json, path: readonly string[], value: unknown): Json {
  const copy = structuredClone(base);
  let parent: Json = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Json;
  const last = path.at(-1)!;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

const pick = <T>(items: readonly T[], index: number): T => items[index % items.length]!;

/** A placeholder string replaced in the serialised JSON by raw text (a number JSON.stringify cannot write, deep nesting). */
const RAW = '\u0001raw\u0001';
const serialise = (value: unknown, raw?: string): Buffer => {
  const text = JSON.stringify(value);
  return Buffer.from(raw === undefined ? text : text.replace(JSON.stringify(RAW), raw), 'utf8');
};

/** Values of every other JSON type, and strings a store or a parser may choke on. */
const wrongValue: fc.Arbitrary<{ value: unknown; raw?: string }> = fc.oneof(
  fc
    .oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.string({ maxLength: 40 }),
      fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    )
    .map((value) => ({ value })),
  fc
    .constantFrom(
      '\u0000',
      'a\u0000b',
      '\ud800',
      '\udfff',
      '',
      ' ',
      '💸',
      '1e400',
      '-0',
      'NaN',
      '9'.repeat(40),
      '<script>',
      "'; DROP TABLE webhook_events; --",
    )
    .map((value) => ({ value })),
  fc
    .constantFrom('1e400', '-1e400', '-0', '123456789012345678901234567890', '0.0000000000000000000000001e-400', '1E+2')
    .map((raw) => ({ value: RAW, raw })),
);

const BAD_UTF8: readonly number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
  [0xf4, 0x90, 0x80, 0x80],
];
const NOT_JSON = [
  'NaN',
  "{'a':1}",
  '{"a":1,}',
  'undefined',
  '{"a":01}',
  '[1,2',
  '"unterminated',
  '{"a"}',
  '\ufeff{}',
  '{"a":1}{"b":2}',
  'null null',
];

/** Bodies of one family, built around `base` (a valid event of the route), all but `oversize` within `limit` bytes. */
export function bodyOf(family: BodyFamily, base: fc.Arbitrary<Json>, limit: number): fc.Arbitrary<FuzzBody> {
  const room = limit - 4096;
  const made = (bytes: Buffer): FuzzBody => ({ family, bytes });
  const inField = <T>(extra: fc.Arbitrary<T>, build: (event: Json, path: string[], extra: T) => Buffer) =>
    fc.tuple(base, fc.nat(), extra).map(([event, index, more]) => {
      // An empty base (a GET's {}) gets the field it is given.
      const paths = fieldPaths(event);
      return made(build(event, paths.length > 0 ? pick(paths, index) : ['field'], more));
    });
  switch (family) {
    case 'valid':
      return base.map((event) => made(serialise(event)));
    case 'random-json':
      return fc.jsonValue({ maxDepth: 3 }).map((value) => made(serialise(value)));
    case 'random-object':
      // Random fields, sometimes beside the event's own name, so some get past the name check.
      return fc
        .tuple(
          base,
          fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
          fc.boolean(),
        )
        .map(([event, fields, keep]) =>
          made(
            serialise(
              keep ? { ...fields, msg_name: event.msg_name, id_msg: event.id_msg, event: event.event } : fields,
            ),
          ),
        );
    case 'wrong-type':
      return inField(wrongValue, (event, path, { value, raw }) => serialise(withField(event, path, value), raw));
    case 'missing-field':
      return inField(fc.constant(undefined), (event, path) => serialise(withField(event, path, undefined)));
    case 'huge-string':
      return inField(
        fc.tuple(fc.integer({ min: 10_000, max: room }), fc.constantFrom('x', 'é', '€', '😀', '\\')),
        (event, path, [bytes, char]) =>
          serialise(withField(event, path, char.repeat(Math.floor(bytes / (2 * Buffer.byteLength(char)))))),
      );
    case 'huge-array':
      return inField(
        fc.tuple(
          fc.integer({ min: 1_000, max: Math.floor(room / 5) }),
          fc.constantFrom<unknown>(0, 'a', null, true, {}),
        ),
        (event, path, [length, item]) =>
          serialise(
            withField(
              event,
              path,
              Array.from({ length }, () => item),
            ),
          ),
      );
    case 'deep':
      return inField(
        fc.tuple(fc.integer({ min: 50, max: Math.floor(room / 6) }), fc.boolean(), fc.boolean()),
        (event, path, [depth, arrays, whole]) => {
          const nested = arrays
            ? '['.repeat(depth) + ']'.repeat(depth)
            : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
          return whole ? Buffer.from(nested) : serialise(withField(event, path, RAW), nested);
        },
      );
    case 'invalid-utf8':
      return inField(fc.constantFrom(...BAD_UTF8), (event, path, bad) => {
        const [before, after] = serialise(withField(event, path, RAW))
          .toString('utf8')
          .split(JSON.stringify(RAW));
        return Buffer.concat([Buffer.from(`${before}"a`), Buffer.from(bad), Buffer.from(`b"${after}`)]);
      });
    case 'not-json':
      return fc.oneof(
        fc.tuple(base, fc.nat()).map(([event, cut]) => {
          const text = JSON.stringify(event);
          return made(Buffer.from(text.slice(0, cut % text.length)));
        }),
        fc.uint8Array({ minLength: 1, maxLength: 512 }).map((bytes) => made(Buffer.from(bytes))),
        fc.constantFrom(...NOT_JSON).map((text) => made(Buffer.from(text))),
      );
    case 'empty':
      return fc.constant(made(Buffer.alloc(0)));
    case 'oversize':
      return fc
        .integer({ min: limit + 1, max: limit + 65_536 })
        .map((size) => made(Buffer.from(`{"pad":"${'x'.repeat(size - 10)}"}`)));
  }
}
