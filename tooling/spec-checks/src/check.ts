import type { ProductInventory, ResourceInventory } from './inventory.ts';
import { type Json, type JsonObject, isObject, objectShape, propertyFacts, refName, resolve, walk } from './openapi.ts';

export type Category =
  | 'operations'
  | 'resources'
  | 'events'
  | 'enum values'
  | 'not shown'
  | 'security'
  | 'versions'
  | 'sources';

/** One thing the reference states that the spec does not carry. */
export interface Finding {
  category: Category;
  /** Where in the spec it should be (operation id, schema name, webhook key…). */
  where: string;
  problem: string;
}

export interface Tally {
  expected: number;
  found: number;
}

export interface CoverageReport {
  findings: Finding[];
  tally: Record<'operations' | 'resources' | 'events' | 'enum values', Tally>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
const lower = (s: string) => s.toLowerCase();
const normalize = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * Compares one product's spec with the reference's inventory of it. Each finding names what is
 * missing or wrong and where; the tally counts what was expected and what the spec carries.
 */
export function checkCoverage(doc: JsonObject, inventory: ProductInventory): CoverageReport {
  const findings: Finding[] = [];
  const tally: CoverageReport['tally'] = {
    operations: { expected: 0, found: 0 },
    resources: { expected: 0, found: 0 },
    events: { expected: 0, found: 0 },
    'enum values': { expected: 0, found: 0 },
  };
  const fail = (category: Category, where: string, problem: string) => findings.push({ category, where, problem });
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const securitySchemes =
    isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};

  // Security schemes: each one the reference names exists.
  for (const wanted of inventory.security) {
    const found = Object.values(securitySchemes).some((raw) => {
      const scheme = resolve(doc, raw);
      if (!scheme || scheme.type !== wanted.type) return false;
      return wanted.type === 'apiKey'
        ? scheme.in === 'header' && typeof scheme.name === 'string' && lower(scheme.name) === lower(wanted.name)
        : typeof scheme.scheme === 'string' && lower(scheme.scheme) === 'bearer';
    });
    if (!found)
      fail(
        'security',
        'components.securitySchemes',
        `no ${wanted.type === 'apiKey' ? `apiKey header "${wanted.name}"` : 'http bearer'} scheme`,
      );
  }

  /** The `in` and `name` of every parameter of an operation, path-level ones included. */
  const parametersOf = (operation: JsonObject, pathItem: JsonObject): { in: string; name: string }[] =>
    [pathItem.parameters, operation.parameters]
      .flatMap((list) => (Array.isArray(list) ? list : []))
      .map((raw) => resolve(doc, raw))
      .flatMap((p) =>
        p && typeof p.in === 'string' && typeof p.name === 'string' ? [{ in: p.in, name: p.name }] : [],
      );

  /** Header names an operation sends: its header parameters and the headers of the security in force. */
  const headersOf = (operation: JsonObject, pathItem: JsonObject): Set<string> => {
    const names = new Set(
      parametersOf(operation, pathItem)
        .filter((p) => p.in === 'header')
        .map((p) => lower(p.name)),
    );
    const security = operation.security ?? doc.security;
    if (Array.isArray(security)) {
      for (const requirement of security) {
        if (!isObject(requirement)) continue;
        for (const name of Object.keys(requirement)) {
          const scheme = resolve(doc, securitySchemes[name]);
          if (scheme?.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string')
            names.add(lower(scheme.name));
          if (scheme?.type === 'http' || scheme?.type === 'oauth2' || scheme?.type === 'openIdConnect')
            names.add('authorization');
        }
      }
    }
    return names;
  };

  const paramsOf = (operation: JsonObject, pathItem: JsonObject): Set<string> =>
    new Set(
      parametersOf(operation, pathItem)
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => p.name),
    );

  const jsonSchemaOf = (holder: Json | undefined): Json | undefined => {
    const resolved = resolve(doc, holder);
    const content = resolved && isObject(resolved.content) ? resolved.content : undefined;
    const media = content && (content['application/json'] ?? Object.values(content)[0]);
    return isObject(media) ? media.schema : undefined;
  };

  const expectRef = (category: Category, where: string, what: string, schema: Json | undefined, name: string) => {
    const actual = refName(schema);
    if (actual !== name) fail(category, where, `${what} should be $ref to ${name}, is ${actual ?? 'not a $ref'}`);
  };

  // Operations.
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const op of inventory.operations) {
    tally.operations.expected++;
    const where = `${op.method.toUpperCase()} ${op.path} (${op.id})`;
    const pathItem = resolve(doc, paths[op.path]);
    const operation = pathItem && isObject(pathItem[op.method]) ? (pathItem[op.method] as JsonObject) : undefined;
    if (!pathItem || !operation) {
      fail('operations', where, 'operation missing');
      continue;
    }
    tally.operations.found++;
    if (operation.operationId !== op.id)
      fail('operations', where, `operationId is ${String(operation.operationId)}, expected ${op.id}`);
    const headers = headersOf(operation, pathItem);
    for (const header of op.headers)
      if (!headers.has(lower(header)))
        fail('operations', where, `header ${header} not declared (parameter or security scheme)`);
    const params = paramsOf(operation, pathItem);
    for (const param of op.params) if (!params.has(param)) fail('operations', where, `parameter ${param} not declared`);
    const responses = isObject(operation.responses) ? operation.responses : {};
    for (const status of op.statuses)
      if (!(status in responses)) fail('operations', where, `response ${status} missing`);
    const success = Object.keys(responses).find((code) => /^2(\d\d|XX)$/.test(code));
    if (!success) fail('operations', where, 'no success (2xx) response');
    if (op.body) expectRef('operations', where, 'request body', jsonSchemaOf(operation.requestBody), op.body);
    if (op.response && success)
      expectRef('operations', where, `response ${success}`, jsonSchemaOf(responses[success]), op.response);
    if (op.errorBody) {
      for (const code of op.statuses.filter((s) => s === '422'))
        expectRef('operations', where, `response ${code}`, jsonSchemaOf(responses[code]), op.errorBody);
    }
    if (op.deprecated && operation.deprecated !== true) fail('operations', where, 'should be deprecated: true');
  }

  for (const status of inventory.forbiddenStatuses) {
    for (const [path, rawItem] of Object.entries(paths)) {
      const pathItem = resolve(doc, rawItem);
      for (const method of HTTP_METHODS) {
        const operation = pathItem?.[method];
        if (isObject(operation) && isObject(operation.responses) && status in operation.responses) {
          fail(
            'operations',
            `${method.toUpperCase()} ${path}`,
            `declares ${status}, which the reference says this service never returns`,
          );
        }
      }
    }
  }

  const notShownOperations = Array.isArray(doc['x-operations-not-shown'])
    ? doc['x-operations-not-shown'].filter(isObject)
    : [];
  for (const op of inventory.operationsNotShown) {
    tally.operations.expected++;
    const entry = notShownOperations.find((e) => e.operationId === op.id);
    if (!entry) {
      fail('operations', op.id, 'missing from x-operations-not-shown');
      continue;
    }
    tally.operations.found++;
    const responses = isObject(entry.responses) ? entry.responses : {};
    for (const status of op.statuses)
      if (!(status in responses)) fail('operations', op.id, `response ${status} missing`);
  }

  // Resources.
  for (const [name, resource] of Object.entries(inventory.resources)) {
    tally.resources.expected++;
    const schema = resolve(doc, schemas[name]);
    if (!schema) {
      fail('resources', name, 'component schema missing');
      continue;
    }
    tally.resources.found++;
    checkResource(doc, name, schema, resource, fail);
  }

  // Events.
  const webhooks = isObject(doc.webhooks) ? doc.webhooks : {};
  for (const [key, event] of Object.entries(inventory.events)) {
    tally.events.expected++;
    const pathItem = resolve(doc, webhooks[key]);
    const operation = pathItem && isObject(pathItem.post) ? pathItem.post : undefined;
    if (!pathItem || !operation) {
      fail('events', key, 'webhooks entry (post) missing');
      continue;
    }
    tally.events.found++;
    expectRef('events', key, 'request body', jsonSchemaOf(operation.requestBody), event.body);
    const responses = isObject(operation.responses) ? operation.responses : {};
    for (const status of event.statuses)
      if (!(status in responses)) fail('events', key, `receiver answer ${status} missing`);
    if (event.rejection) expectRef('events', key, 'response 422', jsonSchemaOf(responses['422']), event.rejection);
    const headers = headersOf(operation, pathItem);
    for (const header of event.headers)
      if (!headers.has(lower(header))) fail('events', key, `header ${header} not declared`);
  }

  // Enum values: each set the reference lists is carried whole by one enum of the spec.
  const specEnums: Set<string>[] = [];
  walk(doc, (node) => {
    if (Array.isArray(node.enum)) specEnums.push(new Set(node.enum.map((v) => String(v))));
  });
  for (const values of inventory.enums) {
    tally['enum values'].expected += values.length;
    let best = new Set<string>();
    for (const candidate of specEnums) {
      const carried = new Set(values.filter((v) => candidate.has(v)));
      if (carried.size > best.size) best = carried;
    }
    tally['enum values'].found += best.size;
    const missing = values.filter((v) => !best.has(v));
    if (missing.length > 0) fail('enum values', `[${values.join(', ')}]`, `no enum carries ${missing.join(', ')}`);
  }

  // "Not shown": every statement is recorded in an x-not-shown of the spec.
  const recorded: string[] = [];
  walk(doc, (node) => {
    const value = node['x-not-shown'];
    if (typeof value === 'string') recorded.push(normalize(value));
    if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') recorded.push(normalize(v));
  });
  for (const phrase of inventory.notShown) {
    if (!recorded.some((text) => text.includes(normalize(phrase))))
      fail('not shown', phrase, 'not recorded in any x-not-shown');
  }

  // Sources: what the spec types from the platform's documentation pages (beyond the reference)
  // names each page in x-source, as an https address a reader can open.
  walk(doc, (node) => {
    const value = node['x-source'];
    if (value === undefined) return;
    const sources = Array.isArray(value) ? value : [value];
    if (sources.length === 0) fail('sources', 'x-source', 'is empty: name the documentation page');
    for (const source of sources) {
      if (typeof source !== 'string' || !/^https:\/\/\S+$/.test(source))
        fail('sources', 'x-source', `${JSON.stringify(source)} is not the https address of a documentation page`);
    }
  });

  // Dated revisions.
  if (inventory.versions) {
    const info = isObject(doc.info) ? doc.info : {};
    if (info.version !== inventory.versions.info)
      fail('versions', 'info.version', `is ${String(info.version)}, expected ${inventory.versions.info}`);
    const changes = JSON.stringify(info['x-changes'] ?? doc['x-changes'] ?? null);
    for (const date of inventory.versions.changes)
      if (!changes.includes(date)) fail('versions', 'info.x-changes', `no entry for ${date}`);
  }

  return { findings, tally };
}

function checkResource(
  doc: JsonObject,
  name: string,
  schema: JsonObject,
  resource: ResourceInventory,
  fail: (category: Category, where: string, problem: string) => void,
): void {
  if (resource.notShown) {
    if (typeof schema['x-not-shown'] !== 'string')
      fail('resources', name, 'the reference does not show it: it needs x-not-shown');
    if (schema.additionalProperties === false) fail('resources', name, 'a resource that is not shown must stay open');
    return;
  }
  const shape = objectShape(doc, schema);
  for (const field of [...resource.required, ...resource.optional, ...resource.fields]) {
    if (!shape.properties.has(field)) fail('resources', `${name}.${field}`, 'property missing');
  }
  for (const field of resource.required) {
    if (shape.properties.has(field) && !shape.required.has(field))
      fail('resources', `${name}.${field}`, 'should be required');
  }
  for (const field of resource.optional) {
    if (shape.required.has(field)) fail('resources', `${name}.${field}`, 'the reference does not make it required');
  }
  if (resource.minProperties !== undefined && shape.minProperties !== resource.minProperties) {
    fail('resources', name, `minProperties should be ${resource.minProperties}`);
  }
  for (const [field, want] of Object.entries(resource.constraints)) {
    const property = shape.properties.get(field);
    if (property === undefined) {
      fail('resources', `${name}.${field}`, 'property missing');
      continue;
    }
    const facts = propertyFacts(doc, property);
    const where = `${name}.${field}`;
    if (want.type && !facts.types.has(want.type)) fail('resources', where, `type should be ${want.type}`);
    if (want.format && !facts.formats.has(want.format)) fail('resources', where, `format should be ${want.format}`);
    if (want.pattern && !facts.patterns.has(want.pattern))
      fail('resources', where, `pattern should be ${want.pattern}`);
    const open = facts.types.size === 0 && facts.enumValues.size === 0; // `{}`: any JSON value, null included
    if (want.nullable && !open && !facts.types.has('null')) fail('resources', where, 'should accept null');
    if (want.enum) {
      const missing = want.enum.filter((v) => !facts.enumValues.has(v));
      const extra = [...facts.enumValues].filter((v) => v !== 'null' && !want.enum?.includes(v));
      if (missing.length) fail('resources', where, `enum lacks ${missing.join(', ')}`);
      if (extra.length) fail('resources', where, `enum has values the reference does not list: ${extra.join(', ')}`);
    }
    if (want.default !== undefined && !facts.defaults.some((d) => d === want.default))
      fail('resources', where, `default should be ${JSON.stringify(want.default)}`);
    if (want.minLength !== undefined && facts.minLength !== want.minLength)
      fail('resources', where, `minLength should be ${want.minLength}`);
  }
}
