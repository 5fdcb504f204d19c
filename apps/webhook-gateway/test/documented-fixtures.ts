// The platform's documented payloads (packages/contracts/fixtures/documented), read as the
// platform sends them: each a JSON file with the page it came from.
import { CORE_EVENT_PATHS, type CoreEventType } from '@paykit/contracts';
import { documentedFixtures } from '@paykit/testing/documented-fixtures';

export interface DocumentedEvent {
  file: string;
  type: CoreEventType;
  route: string;
  source: { title: string; url: string };
  transcription: string;
  notes: string[];
  payload: Record<string, unknown>;
}

/** Every documented webhook event, checked to name a page and a route the gateway serves. */
export function documentedEvents(): DocumentedEvent[] {
  return documentedFixtures<Omit<DocumentedEvent, 'file'> & { kind: string }>('events').map((fixture) => {
    const { file } = fixture;
    if (fixture.kind !== 'event' || !(fixture.type in CORE_EVENT_PATHS))
      throw new Error(`${file}: kind must be "event" and type a core event type`);
    if (CORE_EVENT_PATHS[fixture.type] !== fixture.route)
      throw new Error(
        `${file}: route ${fixture.route} is not the gateway's URL for ${fixture.type} (${CORE_EVENT_PATHS[fixture.type]})`,
      );
    if (!fixture.source?.url || !fixture.source.title)
      throw new Error(`${file}: source must name the page (title and url) it came from`);
    return fixture;
  });
}
