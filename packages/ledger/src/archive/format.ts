// The archive of one month of stored events: `<partition>.ndjson.gz`, one JSON line per event (its
// columns as stored, the body in base64, when it was applied, its decision replays), and beside it
// `<partition>.manifest.json` with the month, the counts and the file's sha256. Timestamps are
// PostgreSQL's own text (microseconds kept), so a restore writes back the same values.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { StoreInputError } from '@paykit/store';

export const ARCHIVE_FORMAT = 'paykit-event-archive/1';

/** One line of an archive: a stored event. */
export interface ArchivedEvent {
  seq: string;
  source: string;
  event_type: string;
  dedupe_key: string;
  id_msg: string | null;
  transaction_id: string | null;
  operation_id: string | null;
  /** The body as received, base64. */
  raw_body: string;
  /** The payload when it was stored apart from the body (jsonb text), else null. */
  payload: string | null;
  headers: unknown;
  received_at: string;
  stored_at: string;
  drift: unknown;
  outcome: string;
  reason: string | null;
  answer_status: number;
  refund_reason: string | null;
  deliveries: number;
  /** When the worker applied it (null only in an archive of a store without the ledger's marker). */
  applied_at: string | null;
  replays: ArchivedReplay[];
}

export interface ArchivedReplay {
  id: string;
  replayed_at: string;
  drift: unknown;
  outcome: string;
  reason: string | null;
  answer_status: number;
  refund_reason: string | null;
}

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  partition: string;
  /** The month: [from, to), UTC. */
  from: string;
  to: string;
  /** The data file's name, beside the manifest. */
  file: string;
  sha256: string;
  bytes: number;
  events: number;
  firstSeq: string | null;
  lastSeq: string | null;
  archivedAt: string;
}

/** The file names of a month's archive in `dir`. */
export function archivePaths(dir: string, partition: string): { data: string; manifest: string } {
  return { data: path.join(dir, `${partition}.ndjson.gz`), manifest: path.join(dir, `${partition}.manifest.json`) };
}

/** sha256 of a file, hex. */
export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The manifest of the archive `file` (its data file or its manifest) after checking the data file
 * against it: present, the same sha256. Throws StoreInputError saying what does not hold.
 */
export async function verifiedManifest(file: string): Promise<{ manifest: ArchiveManifest; data: string }> {
  const manifestFile = file.endsWith('.manifest.json') ? file : file.replace(/\.ndjson\.gz$/, '.manifest.json');
  let manifest: ArchiveManifest;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as ArchiveManifest;
  } catch (error) {
    throw new StoreInputError(
      `no readable archive manifest at ${manifestFile} (${(error as Error).message}): give the .ndjson.gz or the .manifest.json that paykit store archive wrote`,
    );
  }
  if (manifest.format !== ARCHIVE_FORMAT)
    throw new StoreInputError(
      `${manifestFile} is not a paykit event archive manifest (format ${String(manifest.format)}, expected ${ARCHIVE_FORMAT})`,
    );
  const data = path.join(path.dirname(manifestFile), path.basename(manifest.file));
  let sha256: string;
  try {
    sha256 = await fileSha256(data);
  } catch (error) {
    throw new StoreInputError(`the archive's data file ${data} cannot be read (${(error as Error).message})`);
  }
  if (sha256 !== manifest.sha256)
    throw new StoreInputError(
      `${data} does not match its manifest: sha256 ${sha256}, the manifest says ${manifest.sha256}; the file was changed or cut short, restore from another copy`,
    );
  return { manifest, data };
}
