// `paykit drift`: the differences between deliveries and the specs, one record per (source, event
// type, field, kind), read from the store; with --overlay, the same records as an OpenAPI Overlay
// proposing the spec change.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DriftRecord, EventSource } from '@paykit/store';
import { parse, stringify } from 'yaml';
import type { Context } from '../cli/context.ts';
import { UsageError } from '../cli/errors.ts';
import { driftOverlay } from './drift-overlay.ts';
import { withDatabase } from './ledger.ts';

const SPECS_DIR = path.resolve(import.meta.dirname, '../../../../specs');
const SPEC_OF: Record<EventSource, string> = {
  core: 'core.yaml',
  cash: 'cash.yaml',
  direct_debit: 'direct-debit.yaml',
};

export interface DriftOptions {
  source?: string;
  type?: string;
  limit?: string;
  overlay?: string | boolean;
  spec?: string;
}

function checked(options: DriftOptions): { source?: EventSource; limit?: number } {
  if (options.source !== undefined && !Object.hasOwn(SPEC_OF, options.source))
    throw new UsageError(`--source is one of ${Object.keys(SPEC_OF).join(', ')} (got "${options.source}").`);
  if (options.limit !== undefined && !/^\d+$/.test(options.limit))
    throw new UsageError(`--limit is a whole number from 1 to 10000 (got "${options.limit}").`);
  return {
    source: options.source as EventSource | undefined,
    limit: options.limit === undefined ? undefined : Number(options.limit),
  };
}

export async function drift(ctx: Context, options: DriftOptions): Promise<void> {
  const { source, limit } = checked(options);
  if (options.overlay !== undefined && source === undefined)
    throw new UsageError('--overlay proposes changes to one spec: add --source core, cash or direct_debit.');
  const records = await withDatabase(ctx, (db, store) =>
    store.listDrift(db, {
      source,
      eventType: options.type,
      limit: limit ?? (options.overlay === undefined ? 200 : 10_000),
    }),
  );
  if (options.overlay !== undefined && source !== undefined) return writeOverlay(ctx, records, source, options);
  if (records.length === 0) ctx.out.note('No drift: every stored delivery matches its spec.');
  ctx.out.result(
    ctx.out.json
      ? records.map((r) => ({ ...r, firstSeen: r.firstSeen.toISOString(), lastSeen: r.lastSeen.toISOString() }))
      : records.map((r) => ({
          source: r.source,
          type: r.eventType,
          pointer: r.pointer || '(root)',
          kind: r.kind,
          count: r.count,
          firstSeen: r.firstSeen.toISOString(),
          lastSeen: r.lastSeen.toISOString(),
          expected: r.example.expected,
          seen: r.example.seen,
        })),
  );
}

function writeOverlay(ctx: Context, records: DriftRecord[], source: EventSource, options: DriftOptions): void {
  const specPath = options.spec ?? path.join(SPECS_DIR, SPEC_OF[source]);
  let doc: unknown;
  try {
    doc = parse(readFileSync(specPath, 'utf8'));
  } catch (error) {
    throw new UsageError(
      `Cannot read the spec ${specPath}: ${(error as Error).message}. Pass --spec <file> to name it.`,
    );
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new UsageError(`${specPath} is not an OpenAPI document (a YAML mapping).`);
  const newest = records.reduce<Date | undefined>(
    (latest, r) => (latest === undefined || r.lastSeen > latest ? r.lastSeen : latest),
    undefined,
  );
  const { overlay, unplaced } = driftOverlay(doc as Record<string, unknown>, records, {
    specFile: path.basename(specPath),
    version: (newest ?? new Date(0)).toISOString(),
  });
  const text = stringify(overlay, { lineWidth: 0 });
  if (typeof options.overlay === 'string') {
    writeFileSync(options.overlay, text);
    ctx.out.note(
      `Wrote ${overlay.actions.length} action${overlay.actions.length === 1 ? '' : 's'} to ${options.overlay}.`,
    );
  } else {
    process.stdout.write(text);
  }
  for (const r of unplaced)
    ctx.out.note(
      `No place in ${path.basename(specPath)} for ${r.eventType} ${r.pointer || '(root)'} (${r.kind}, ${r.count}×): change the spec by hand.`,
    );
}
