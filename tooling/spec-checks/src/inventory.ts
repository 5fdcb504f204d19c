import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import * as z from 'zod';

/** What the reference states about one field of a resource. */
const Constraint = z.strictObject({
  type: z.enum(['string', 'integer', 'number', 'boolean', 'array', 'object']).optional(),
  format: z.string().optional(),
  pattern: z.string().optional(),
  enum: z.array(z.string()).optional(),
  nullable: z.boolean().optional(),
  default: z.union([z.string(), z.number(), z.boolean()]).optional(),
  minLength: z.number().int().optional(),
});

const Resource = z.strictObject({
  required: z.array(z.string()).default([]),
  optional: z.array(z.string()).default([]),
  fields: z.array(z.string()).default([]),
  constraints: z.record(z.string(), Constraint).default({}),
  minProperties: z.number().int().optional(),
  /** The reference names the resource but not its fields: the spec must say so (x-not-shown). */
  notShown: z.boolean().default(false),
});

const Method = z.enum(['get', 'put', 'post', 'delete', 'patch']);

const Operation = z.strictObject({
  id: z.string(),
  method: Method,
  path: z.string().startsWith('/'),
  headers: z.array(z.string()).default([]),
  params: z.array(z.string()).default([]),
  statuses: z.array(z.string()).default([]),
  body: z.string().optional(),
  response: z.string().optional(),
  errorBody: z.string().optional(),
  deprecated: z.boolean().default(false),
});

const OperationNotShown = z.strictObject({
  id: z.string(),
  statuses: z.array(z.string()).default([]),
});

const Event = z.strictObject({
  body: z.string(),
  statuses: z.array(z.string()).default([]),
  headers: z.array(z.string()).default([]),
  rejection: z.string().optional(),
});

const SecurityScheme = z.union([
  z.strictObject({ type: z.literal('apiKey'), in: z.literal('header'), name: z.string() }),
  z.strictObject({ type: z.literal('http'), scheme: z.literal('bearer') }),
]);

const ProductInventory = z.strictObject({
  security: z.array(SecurityScheme),
  operations: z.array(Operation),
  operationsNotShown: z.array(OperationNotShown).default([]),
  forbiddenStatuses: z.array(z.string()).default([]),
  resources: z.record(z.string(), Resource).default({}),
  events: z.record(z.string(), Event).default({}),
  enums: z.array(z.array(z.string()).nonempty()).default([]),
  versions: z.strictObject({ info: z.string(), changes: z.array(z.string()) }).optional(),
  notShown: z.array(z.string()).default([]),
});

export const Inventory = z.strictObject({
  products: z.record(z.string(), ProductInventory),
});

export type Inventory = z.infer<typeof Inventory>;
export type ProductInventory = z.infer<typeof ProductInventory>;
export type ResourceInventory = z.infer<typeof Resource>;
export type FieldConstraint = z.infer<typeof Constraint>;

export const INVENTORY_PATH = fileURLToPath(new URL('../reference/inventory.yaml', import.meta.url));

export async function loadInventory(file = INVENTORY_PATH): Promise<Inventory> {
  const result = Inventory.safeParse(parse(await readFile(file, 'utf8')));
  if (!result.success) {
    throw new Error(`${file} is not a valid inventory:\n${z.prettifyError(result.error)}`);
  }
  return result.data;
}
