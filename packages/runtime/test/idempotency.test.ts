import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  IDEMPOTENCY_NAMESPACES,
  idempotencyKey,
  UUID_V5_PATTERN,
  uuidV5,
} from '../src/core/idempotency.ts';

const NAMESPACE_DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const NAMESPACE_URL = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/** Rebuilds every object with its keys in a different (seeded) order; arrays keep their order. */
function deepShuffle(value: unknown, seed: number): unknown {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: deterministic per seed, so a failure can be replayed.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const visit = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(visit);
    if (item === null || typeof item !== 'object') return item;
    const entries = Object.entries(item);
    for (let index = entries.length - 1; index > 0; index--) {
      const other = Math.floor(next() * (index + 1));
      [entries[index], entries[other]] = [entries[other]!, entries[index]!];
    }
    // fromEntries defines own properties, so a "__proto__" key stays a key.
    return Object.fromEntries(entries.map(([key, member]) => [key, visit(member)]));
  };
  return visit(value);
}

describe('canonicalJson', () => {
  it('matches Python json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)', () => {
    // Expected strings printed by Python 3 with exactly that call.
    expect(
      canonicalJson([
        'client-42',
        'moneyOut',
        {
          nested: { z: 1, a: [true, null, 2.5, { y: 'b', x: 'a' }] },
          concept: 'Renta — Peña & Ñandú 💸',
          amount: '1234.56',
        },
      ]),
    ).toBe(
      '["client-42","moneyOut",{"amount":"1234.56","concept":"Renta — Peña & Ñandú 💸","nested":{"a":[true,null,2.5,{"x":"a","y":"b"}],"z":1}}]',
    );
    expect(canonicalJson(['client-42', 'moneyOut', {}])).toBe('["client-42","moneyOut",{}]');
    expect(canonicalJson(['client-42', 'ping', null])).toBe('["client-42","ping",null]');
  });

  it('drops undefined members, writes null for undefined array items, and honours toJSON (as JSON.stringify sends)', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson([1, undefined, 2])).toBe('[1,null,2]');
    expect(canonicalJson({ at: new Date('2026-05-07T18:00:00.000Z') })).toBe('{"at":"2026-05-07T18:00:00.000Z"}');
    expect(canonicalJson({ text: 'line\n"quoted"\u0001' })).toBe('{"text":"line\\n\\"quoted\\"\\u0001"}');
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('throws rather than silently change the payload', () => {
    expect(() => canonicalJson({ amount: 1250n })).toThrow(
      /\$\.amount is a bigint, which JSON cannot represent: send amounts as decimal strings/,
    );
    expect(() => canonicalJson({ rate: Number.NaN })).toThrow(/\$\.rate is NaN/);
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow(/\$\[0\] is Infinity/);
    expect(() => canonicalJson({ run: () => 1 })).toThrow(/\$\.run is a function/);
    expect(() => canonicalJson({ tag: Symbol('x') })).toThrow(/is a symbol/);
    expect(() => canonicalJson({ map: new Map([['a', 1]]) })).toThrow(
      /\$\.map is a Map, which JSON.stringify would write as \{\}/,
    );
    expect(() => canonicalJson(new Set([1]))).toThrow(/is a Set/);
    expect(() => canonicalJson(undefined)).toThrow(/the value itself is undefined/);
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/\$\.self refers back to one of its parents \(a cycle\)/);
  });
});

describe('uuidV5', () => {
  it('matches Python uuid.uuid5', () => {
    // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, 'www.example.com'))" (the RFC's DNS example)
    expect(uuidV5('www.example.com', NAMESPACE_DNS)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, 'https://example.com/'))"
    expect(uuidV5('https://example.com/', NAMESPACE_URL)).toBe('dd2c1780-811a-5296-81c5-178a0ef488bc');
    // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, ''))"
    expect(uuidV5('', NAMESPACE_DNS)).toBe('4ebd0208-8328-5d69-8c44-ec50939c0967');
    // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, 'Peña 💸'))" (the name is hashed as UTF-8)
    expect(uuidV5('Peña 💸', NAMESPACE_DNS)).toBe('cdae38c6-c9ff-5e18-ad90-9c5f5f32d7a3');
  });

  it('reads the namespace case-insensitively and refuses anything but a UUID', () => {
    expect(uuidV5('www.example.com', NAMESPACE_DNS.toUpperCase())).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(() => uuidV5('x', 'sandbox')).toThrow(
      /the namespace must be a UUID .*IDEMPOTENCY_NAMESPACES\[environment\]/,
    );
    expect(() => uuidV5('x', '6ba7b8109dad11d180b400c04fd430c8')).toThrow(TypeError);
  });
});

describe('idempotencyKey', () => {
  it('matches Python: uuid5(namespace, json.dumps([client, operation, body], sort_keys=True, separators=(",", ":"), ensure_ascii=False))', () => {
    const penny = {
      source_instrument_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      external_reference: '0000001',
      client_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      destination_instrument_id: 'e4eaaaf2-d142-11e1-b3e4-080027620cdd',
      description: 'Penny Validation',
    };
    expect(
      idempotencyKey(
        { clientId: '0f8fad5b-d9cb-469f-a165-70867728950e', operation: 'createPennyValidation', body: penny },
        IDEMPOTENCY_NAMESPACES.sandbox,
      ),
    ).toBe('825da0d0-b9dd-5f14-a475-557b0149c7a6');
    const moneyOut = {
      concept: 'Renta — Peña & Ñandú 💸',
      nested: { z: 1, a: [true, null, 2.5, { y: 'b', x: 'a' }] },
      amount: '1234.56',
    };
    expect(
      idempotencyKey(
        { clientId: 'client-42', operation: 'moneyOut', body: moneyOut },
        IDEMPOTENCY_NAMESPACES.production,
      ),
    ).toBe('9d696149-f314-5dbb-b29d-e8c2d821ff0d');
    expect(
      idempotencyKey({ clientId: 'client-42', operation: 'moneyOut', body: {} }, IDEMPOTENCY_NAMESPACES.staging),
    ).toBe('e136b0d4-9806-5f5e-8027-9266805f638c');
    expect(
      idempotencyKey({ clientId: 'client-42', operation: 'ping', body: null }, IDEMPOTENCY_NAMESPACES.sandbox),
    ).toBe('8c8accb4-f3c1-5c35-8232-0bdc3bab2b5e');
  });

  it('pins the namespaces: changing one would change every key', () => {
    expect(IDEMPOTENCY_NAMESPACES).toEqual({
      sandbox: '7ec403da-ac46-4e7b-9c8a-e396ba2d02ce',
      staging: '22fb5527-66c6-4407-a1d2-8674716795fd',
      production: '8b4a32fe-98a8-4655-9338-04386b35772a',
    });
    expect(Object.isFrozen(IDEMPOTENCY_NAMESPACES)).toBe(true);
  });

  it('gives another key in another environment', () => {
    const input = { clientId: 'client-42', operation: 'moneyOut', body: { amount: '10.00' } };
    const keys = new Set(Object.values(IDEMPOTENCY_NAMESPACES).map((namespace) => idempotencyKey(input, namespace)));
    expect(keys.size).toBe(3);
  });

  it('needs a client id and an operation', () => {
    expect(() =>
      idempotencyKey({ clientId: '', operation: 'moneyOut', body: {} }, IDEMPOTENCY_NAMESPACES.sandbox),
    ).toThrow(/clientId must be/);
    expect(() => idempotencyKey({ clientId: 'c', operation: '', body: {} }, IDEMPOTENCY_NAMESPACES.sandbox)).toThrow(
      /operation must name/,
    );
  });
});

describe('idempotency properties', () => {
  const namespace = fc.constantFrom(...Object.values(IDEMPOTENCY_NAMESPACES));
  const body = fc.jsonValue();

  it('the shuffle used below really reorders keys', () => {
    const value = { a: 1, b: { c: 2, d: 3, e: [{ f: 4, g: 5 }] }, h: 6 };
    const orders = new Set(Array.from({ length: 20 }, (_, seed) => JSON.stringify(deepShuffle(value, seed + 1))));
    expect(orders.size).toBeGreaterThan(5);
  });

  it('the key does not depend on object key order, at any depth', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1 }),
        body,
        fc.integer(),
        namespace,
        (clientId, operation, value, seed, ns) => {
          const id = clientId || 'client';
          const shuffled = deepShuffle(value, seed);
          expect(canonicalJson(shuffled)).toBe(canonicalJson(value));
          expect(idempotencyKey({ clientId: id, operation, body: shuffled }, ns)).toBe(
            idempotencyKey({ clientId: id, operation, body: value }, ns),
          );
        },
      ),
    );
  });

  it('canonical JSON is JSON that reads back to the same value', () => {
    fc.assert(
      fc.property(body, (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
    );
  });

  it('different client, operation or body give different keys', () => {
    const input = fc.record({ clientId: fc.string({ minLength: 1 }), operation: fc.string({ minLength: 1 }), body });
    fc.assert(
      fc.property(input, input, namespace, (a, b, ns) => {
        const same =
          a.clientId === b.clientId && a.operation === b.operation && canonicalJson(a.body) === canonicalJson(b.body);
        expect(idempotencyKey(a, ns) === idempotencyKey(b, ns)).toBe(same);
      }),
    );
    fc.assert(
      fc.property(input, fc.string({ minLength: 1 }), namespace, (a, suffix, ns) => {
        expect(idempotencyKey({ ...a, clientId: a.clientId + suffix }, ns)).not.toBe(idempotencyKey(a, ns));
        expect(idempotencyKey({ ...a, operation: a.operation + suffix }, ns)).not.toBe(idempotencyKey(a, ns));
        expect(idempotencyKey({ ...a, body: [a.body] }, ns)).not.toBe(idempotencyKey(a, ns));
      }),
    );
  });

  it('every key is a lowercase version-5 UUID with the RFC 4122 variant', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        body,
        namespace,
        (clientId, operation, value, ns) => {
          expect(idempotencyKey({ clientId, operation, body: value }, ns)).toMatch(UUID_V5_PATTERN);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.uuid(), (name, ns) => UUID_V5_PATTERN.test(uuidV5(name, ns))),
    );
  });
});
