// Just enough of an OpenAPI 3.1 reader for the coverage check: local $refs, allOf merging, and
// the facts of a property schema wherever they are spelled (type arrays, oneOf/anyOf with null).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows local `$ref`s (`#/components/...`) until a schema without one; undefined if broken. */
export function resolve(doc: JsonObject, node: Json | undefined): JsonObject | undefined {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 32 || !current.$ref.startsWith('#/')) return undefined;
    current = current.$ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<Json | undefined>((at, key) => (isObject(at) ? at[key] : undefined), doc);
  }
  return isObject(current) ? current : undefined;
}

/** The name of the component a `$ref` points at (`#/components/schemas/X` → `X`). */
export function refName(node: Json | undefined): string | undefined {
  if (!isObject(node) || typeof node.$ref !== 'string') return undefined;
  return node.$ref.split('/').at(-1);
}

export interface ObjectShape {
  properties: Map<string, Json>;
  required: Set<string>;
  minProperties?: number;
}

/** The properties and required names of an object schema, merged across `allOf`. */
export function objectShape(doc: JsonObject, node: Json | undefined): ObjectShape {
  const shape: ObjectShape = { properties: new Map(), required: new Set() };
  const visit = (n: Json | undefined, depth: number): void => {
    const schema = resolve(doc, n);
    if (!schema || depth > 16) return;
    if (isObject(schema.properties)) {
      for (const [name, property] of Object.entries(schema.properties)) shape.properties.set(name, property);
    }
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) if (typeof name === 'string') shape.required.add(name);
    }
    if (typeof schema.minProperties === 'number') shape.minProperties = schema.minProperties;
    if (Array.isArray(schema.allOf)) for (const part of schema.allOf) visit(part, depth + 1);
  };
  visit(node, 0);
  return shape;
}

export interface PropertyFacts {
  types: Set<string>;
  formats: Set<string>;
  patterns: Set<string>;
  enumValues: Set<string>;
  defaults: Json[];
  minLength?: number;
}

/** Everything a property schema says, gathered over $ref, allOf, oneOf and anyOf branches. */
export function propertyFacts(doc: JsonObject, node: Json | undefined): PropertyFacts {
  const facts: PropertyFacts = {
    types: new Set(),
    formats: new Set(),
    patterns: new Set(),
    enumValues: new Set(),
    defaults: [],
  };
  const visit = (n: Json | undefined, depth: number): void => {
    if (isObject(n) && 'default' in n) facts.defaults.push(n.default ?? null);
    const schema = resolve(doc, n);
    if (!schema || depth > 16) return;
    if (typeof schema.type === 'string') facts.types.add(schema.type);
    if (Array.isArray(schema.type)) for (const t of schema.type) if (typeof t === 'string') facts.types.add(t);
    if (typeof schema.format === 'string') facts.formats.add(schema.format);
    if (typeof schema.pattern === 'string') facts.patterns.add(schema.pattern);
    if (Array.isArray(schema.enum)) for (const v of schema.enum) facts.enumValues.add(v === null ? 'null' : String(v));
    if ('const' in schema) facts.enumValues.add(String(schema.const));
    if ('default' in schema) facts.defaults.push(schema.default ?? null);
    if (typeof schema.minLength === 'number') facts.minLength = schema.minLength;
    if (schema.nullable === true) facts.types.add('null');
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches)) for (const branch of branches) visit(branch, depth + 1);
    }
  };
  visit(node, 0);
  if (facts.enumValues.has('null')) facts.types.add('null');
  return facts;
}

/** Calls `visit` on every object in the document, with its JSON path. */
export function walk(node: Json, visit: (value: JsonObject, path: string[]) => void, path: string[] = []): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => walk(item, visit, [...path, String(i)]));
  } else if (isObject(node)) {
    visit(node, path);
    for (const [key, value] of Object.entries(node)) walk(value, visit, [...path, key]);
  }
}
