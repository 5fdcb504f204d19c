import { mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  clientDefaultConfig,
  clientDefaultMeta,
  createClient,
  definePluginConfig,
  $,
  type Client,
  type DefinePlugin,
} from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse } from 'yaml';
import { REPO_ROOT, type Product } from './products.ts';

/** Every date-time form the platform's documentation shows (see the string resolver below). */
export const PLATFORM_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:?\\d{2})?$';

interface SpecInfo {
  title: string;
  version: string;
}

interface SpecDocument {
  info: SpecInfo;
  [key: string]: unknown;
}

/**
 * The `minProperties` of the spec schema a generator walk is at. hey-api names the write-side
 * variant of a schema with readOnly/writeOnly fields `<Name>Writable`; it shares the original's.
 */
function minPropertiesAt(document: SpecDocument, at: unknown): number | undefined {
  const ref = (at as { '~ref'?: unknown } | undefined)?.['~ref'];
  if (!Array.isArray(ref) || !ref.every((part) => typeof part === 'string')) return undefined;
  const lookup = (parts: string[]): unknown =>
    parts.reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      document,
    );
  let schema = lookup(ref);
  const last = ref.at(-1);
  if (schema === undefined && last?.endsWith('Writable'))
    schema = lookup([...ref.slice(0, -1), last.slice(0, -'Writable'.length)]);
  const min = (schema as { minProperties?: unknown } | undefined)?.minProperties;
  return typeof min === 'number' && min > 0 ? min : undefined;
}

type RuntimeClientConfig = Client.Config & { name: '@paykit/runtime' };
type RuntimeClientPlugin = DefinePlugin<RuntimeClientConfig, RuntimeClientConfig>;

/**
 * The client plugin of the generated SDK: `@paykit/runtime` (the runtime's createSdkClient).
 * With `bundle: false` hey-api imports the client's types (Client, Options, RequestResult,
 * TDataShape, ClientMeta) from the plugin's name instead of emitting its own fetch client into
 * the output, and the no-op handler emits no client module (no default client instance: the SDK
 * is generated with `client: false`, so every call is given one): the output has no
 * `client.gen.ts`, the file hey-api writes by default (docs-check: not-a-path).
 */
const runtimeClient = definePluginConfig<RuntimeClientPlugin['Types']>({
  ...clientDefaultMeta,
  config: { ...clientDefaultConfig, bundle: false },
  handler: () => undefined,
  name: '@paykit/runtime',
});

/**
 * Generates one product's code into `outDir` (emptied first):
 * - the SDK (importing its client types from @paykit/runtime), request/response types and zod
 *   schemas from @hey-api/openapi-ts;
 * - the `paths`/`webhooks`/`components` type maps from openapi-typescript (`paths.gen.ts`);
 * - `meta.gen.ts` with the API revision (`info.version`) the code was generated from.
 * Every file gets the same header, so a reader knows where it came from and not to edit it.
 * `root` is the repository (or a copy of it) whose `specs/` is read.
 */
export async function generateProduct(product: Product, outDir: string, root = REPO_ROOT): Promise<string[]> {
  const specPath = path.join(root, product.spec);
  const document = parse(await readFile(specPath, 'utf8')) as SpecDocument;

  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });

  await createClient({
    input: specPath,
    output: { path: outDir, importFileExtension: '.ts', clean: true },
    logs: { level: 'silent', file: false },
    plugins: [
      runtimeClient(),
      '@hey-api/typescript',
      { name: '@hey-api/sdk', validator: true, client: false },
      {
        name: 'zod',
        // Platform date-times carry offsets (-06:00); z.iso.datetime() rejects them by default.
        dates: { offset: true },
        // A tolerant reader: objects keep the fields the spec does not name, so a payload read
        // through a schema loses nothing and drift can be seen, not silently stripped.
        '~resolvers': {
          // The platform writes date-times in several forms, all valid input: "2025-03-05
          // 11:16:59.488685-06:00", "2025-03-06 11:16:59.491631" (Mexico City, no offset),
          // "2026-02-24T10:30:15Z", "2025-08-15T22:42:39.327Z". z.iso.datetime() takes only the
          // last two, so `format: date-time` becomes a pattern that takes them all.
          string: (ctx) => {
            if (ctx.schema.format !== 'date-time') return undefined;
            return $(ctx.plugin.imports.z)
              .attr('string')
              .call()
              .attr('regex')
              .call(
                $.regexp(PLATFORM_DATE_TIME),
                $.literal(
                  'a date-time: YYYY-MM-DD, then T or a space, HH:MM:SS, optional fraction, optional Z or ±HH:MM offset',
                ),
              );
          },
          object: (ctx) => {
            const properties = ctx.schema.properties;
            if (!properties || Object.keys(properties).length === 0) return undefined;
            const loose = $(ctx.plugin.imports.z).attr('looseObject').call(ctx.nodes.shape(ctx));
            // hey-api's IR drops minProperties ("at least one field required" on PATCH bodies):
            // read it from the spec at the schema's own path and add the check.
            const min = minPropertiesAt(document, ctx.path);
            if (min === undefined) return loose;
            const atLeast = $.func((f) =>
              f
                .param('value')
                .do($('Object').attr('keys').call($('value')).attr('length').gte($.literal(min)).return()),
            );
            return loose
              .attr('refine')
              .call(atLeast, $.object().prop('message', $.literal(`at least ${min} field(s) required`)));
          },
        },
      },
    ],
  });

  const ast = await openapiTS(pathToFileURL(specPath), { alphabetize: false });
  await writeFile(path.join(outDir, 'paths.gen.ts'), astToString(ast));

  await writeFile(
    path.join(outDir, 'meta.gen.ts'),
    [
      `/** The API revision (the spec's info.version) this code was generated from. */`,
      `export const API_VERSION = ${JSON.stringify(document.info.version)};`,
      `/** The product's name as the spec gives it. */`,
      `export const API_TITLE = ${JSON.stringify(document.info.title)};`,
      `/** The product id: the spec's file name without .yaml. */`,
      `export const PRODUCT = ${JSON.stringify(product.id)};`,
      '',
    ].join('\n'),
  );

  const files = await listFiles(outDir);
  const header = headerFor(product, document.info);
  await Promise.all(
    files.map(async (file) => {
      const full = path.join(outDir, file);
      const text = (await readFile(full, 'utf8')).replace(
        /^\/\/ This file is auto-generated by @hey-api\/openapi-ts\n\n?/,
        '',
      );
      await writeFile(full, header + text);
    }),
  );
  return files;
}

function headerFor(product: Product, info: SpecInfo): string {
  return (
    `// Generated by \`pnpm gen\` from ${product.spec} (API ${info.version}) with @hey-api/openapi-ts and openapi-typescript.\n` +
    `// Do not edit: change the spec and regenerate. CI (\`pnpm gen:check\`) fails when this file differs from a fresh run.\n\n`
  );
}

/** Every file below `dir`, relative to it, with `/` separators, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

/**
 * `pnpm gen` for one product: generates into a scratch folder, then writes into `outDir` only the
 * files whose bytes changed, each through a temporary file renamed into place (so a reader never
 * sees a missing or half-written file), and deletes the files no longer generated. With the specs
 * unchanged it writes nothing: running it while tests or type checks read the generated code is
 * safe. Returns every generated file and those it changed.
 */
export async function regenerateProduct(
  product: Product,
  outDir: string,
  root = REPO_ROOT,
): Promise<{ files: string[]; changed: string[] }> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'paykit-gen-'));
  try {
    const files = await generateProduct(product, scratch, root);
    const before = await listFiles(outDir).catch(() => [] as string[]);
    const changed: string[] = [];
    for (const file of files) {
      const fresh = await readFile(path.join(scratch, file));
      const current = await readFile(path.join(outDir, file)).catch(() => undefined);
      if (current?.equals(fresh)) continue;
      const target = path.join(outDir, file);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(`${target}.${process.pid}.tmp`, fresh);
      await rename(`${target}.${process.pid}.tmp`, target);
      changed.push(file);
    }
    for (const file of before.filter((f) => !files.includes(f))) {
      await rm(path.join(outDir, file));
      changed.push(file);
    }
    return { files, changed };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
