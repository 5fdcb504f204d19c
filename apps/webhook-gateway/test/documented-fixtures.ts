// The platform's documented payloads (packages/contracts/fixtures/documented), read as the
// platform sends them: each a JSON file with the page it came from.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CORE_EVENT_PATHS, type CoreEventType } from '@paykit/contracts';

export interface DocumentedEvent {
  file: string;
  type: CoreEventType;
  route: string;
  source: { title: string; url: string };
  transcription: string;
  notes: string[];
  payload: Record<string, unknown>;
}

const directory = join(dirname(createRequire(import.meta.url).resolve('@paykit/contracts/package.json')), 'fixtures', 'documented', 'events');

/** Every documented webhook event, checked to name a page and a route the gateway serves. */
export function documentedEvents(): DocumentedEvent[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => {
      const fixture = JSON.parse(readFileSync(join(directory, file), 'utf8')) as Omit<DocumentedEvent, 'file'> & { kind: string };
      if (fixture.kind !== 'event' || !(fixture.type in CORE_EVENT_PATHS)) throw new Error(`${file}: kind must be "event" and type a core event type`);
      if (CORE_EVENT_PATHS[fixture.type] !== fixture.route) throw new Error(`${file}: route ${fixture.route} is not the gateway's URL for ${fixture.type} (${CORE_EVENT_PATHS[fixture.type]})`);
      if (!fixture.source?.url || !fixture.source.title) throw new Error(`${file}: source must name the page (title and url) it came from`);
      return { file, ...fixture };
    });
}
