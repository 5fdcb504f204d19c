// Drift records as an OpenAPI Overlay 1.0 document: one action per record, proposing the spec
// change that would make the deliveries match (an unexpected property added, a format dropped, a
// field no longer required). Targets are JSONPath into the spec, resolved through its $refs to the
// component schema that holds the field, so a reviewer sees the line to change.
import type { DriftRecord } from '@paykit/store';

export interface OverlayAction {
  target: string;
  description: string;
  update?: Record<string, unknown>;
  remove?: true;
}

export interface Overlay {
  overlay: '1.0.0';
  info: { title: string; version: string };
  extends?: string;
  actions: OverlayAction[];
}

type Node = Record<string, unknown>;
interface Location {
  path: string[];
  node: Node;
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `$.components.schemas.MoneyInEvent['properties']…`: dots for plain names, brackets otherwise. */
export function jsonPath(path: readonly string[]): string {
  return `$${path.map((p) => (/^[A-Za-z_][\w]*$/.test(p) ? `.${p}` : `['${p.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`)).join('')}`;
}

function at(doc: Node, path: readonly string[]): unknown {
  let current: unknown = doc;
  for (const part of path) current = isNode(current) ? current[part] : undefined;
  return current;
}

/** Follows a local $ref (and an allOf of one $ref) to the schema it names. */
function deref(doc: Node, loc: Location): Location {
  let current = loc;
  for (let i = 0; i < 16; i++) {
    const ref = current.node.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current;
    const path = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const node = at(doc, path);
    if (!isNode(node)) return current;
    current = { path, node };
  }
  return current;
}

/** The schema of one payload field below `loc`: its properties, an array's items, or an allOf/anyOf/oneOf branch naming it. */
function step(doc: Node, loc: Location, segment: string): Location | undefined {
  const here = deref(doc, loc);
  if (segment === '*' || /^\d+$/.test(segment)) {
    const items = here.node.items;
    if (isNode(items)) return { path: [...here.path, 'items'], node: items };
  }
  const properties = here.node.properties;
  if (isNode(properties) && isNode(properties[segment]))
    return { path: [...here.path, 'properties', segment], node: properties[segment] };
  for (const combiner of ['allOf', 'anyOf', 'oneOf']) {
    const branches = here.node[combiner];
    if (!Array.isArray(branches)) continue;
    for (let i = 0; i < branches.length; i++) {
      const branch = branches[i] as unknown;
      if (!isNode(branch)) continue;
      const found = step(doc, { path: [...here.path, combiner, String(i)], node: branch }, segment);
      if (found) return found;
    }
  }
  return undefined;
}

function webhookSchema(doc: Node, eventType: string): Location | undefined {
  const path = ['webhooks', eventType, 'post', 'requestBody', 'content', 'application/json', 'schema'];
  const node = at(doc, path);
  return isNode(node) ? { path, node } : undefined;
}

function resolve(doc: Node, eventType: string, segments: readonly string[]): Location | undefined {
  let loc = webhookSchema(doc, eventType);
  for (const segment of segments) {
    if (!loc) return undefined;
    loc = step(doc, loc, segment);
  }
  return loc ? deref(doc, loc) : undefined;
}

function segmentsOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A schema for what was seen, from the note's description ("string (12 chars)", "number (integer)"). */
export function schemaFromSeen(seen: string): Record<string, unknown> {
  if (seen.startsWith('string (uuid)')) return { type: 'string', format: 'uuid' };
  if (seen.startsWith('string (ISO 8601 date-time')) return { type: 'string', format: 'date-time' };
  if (seen.startsWith('string') || seen === 'empty string') return { type: 'string' };
  if (seen === 'number (integer)') return { type: 'integer' };
  if (seen.startsWith('number')) return { type: 'number' };
  if (seen.startsWith('boolean')) return { type: 'boolean' };
  if (seen.startsWith('array')) return { type: 'array' };
  if (seen.startsWith('object')) return { type: 'object' };
  if (seen === 'null') return { type: 'null' };
  return {};
}

function evidence(record: DriftRecord): string {
  const times = record.count === 1 ? 'once' : `${record.count} times`;
  return `${record.eventType} ${record.pointer || '(root)'}: ${record.kind} ${times}, ${record.firstSeen.toISOString()} to ${record.lastSeen.toISOString()} (latest event ${record.example.seq}): expected ${record.example.expected}, saw ${record.example.seen}`;
}

function action(doc: Node, record: DriftRecord): OverlayAction | undefined {
  const segments = segmentsOf(record.pointer);
  const description = evidence(record);
  if (record.kind === 'extra-field' && segments.length > 0) {
    const parent = resolve(doc, record.eventType, segments.slice(0, -1));
    if (!parent) return undefined;
    const name = segments.at(-1)!;
    return {
      target: jsonPath(parent.path),
      description,
      update: {
        properties: {
          [name]: {
            ...schemaFromSeen(record.example.seen),
            description: `Sent by the platform, not yet documented (${record.example.seen}).`,
          },
        },
      },
    };
  }
  if (record.kind === 'missing-field' && segments.length > 0) {
    const parent = resolve(doc, record.eventType, segments.slice(0, -1));
    const name = segments.at(-1)!;
    if (!parent || !Array.isArray(parent.node.required) || !parent.node.required.includes(name)) return undefined;
    return {
      target: `${jsonPath([...parent.path, 'required'])}[?(@ == '${name.replace(/'/g, "\\'")}')]`,
      description,
      remove: true,
    };
  }
  if (record.kind === 'mismatch') {
    const field = resolve(doc, record.eventType, segments);
    if (!field) return undefined;
    if (typeof field.node.format === 'string')
      return {
        target: jsonPath([...field.path, 'format']),
        description: `${description}; widen: drop format ${field.node.format}`,
        remove: true,
      };
    const existing = typeof field.node.description === 'string' ? `${field.node.description.trim()} ` : '';
    return {
      target: jsonPath(field.path),
      description,
      update: {
        description: `${existing}Also sent as ${record.example.seen} (the spec says ${record.example.expected}).`,
      },
    };
  }
  return undefined;
}

/** One action per record the spec has a place for; the others are returned to be reported. */
export function driftOverlay(
  doc: Node,
  records: readonly DriftRecord[],
  meta: { specFile: string; version: string },
): { overlay: Overlay; unplaced: DriftRecord[] } {
  const actions: OverlayAction[] = [];
  const unplaced: DriftRecord[] = [];
  for (const record of records) {
    const made = action(doc, record);
    if (made) actions.push(made);
    else unplaced.push(record);
  }
  return {
    overlay: {
      overlay: '1.0.0',
      info: { title: `Drift seen in deliveries, proposed as changes to ${meta.specFile}`, version: meta.version },
      extends: meta.specFile,
      actions,
    },
    unplaced,
  };
}
