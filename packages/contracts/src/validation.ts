// What a server built on these contracts says when a request does not match its route: each
// failed check as "<where> <field>: <message>" (where: path, header, query, body), so the answer
// names the field to fix. Typed by shape, so it takes ts-rest's RequestValidationError from any
// server adapter.

interface FailedSection {
  issues: ReadonlyArray<{ path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>; message: string }>;
}

export interface RequestValidationFailure {
  pathParams?: FailedSection | null;
  headers?: FailedSection | null;
  query?: FailedSection | null;
  body?: FailedSection | null;
}

/** Each failed check of a request, e.g. `query limit: Expected number, received nan`. */
export function describeValidationIssues(error: RequestValidationFailure): string[] {
  const sections = [
    ['path', error.pathParams],
    ['header', error.headers],
    ['query', error.query],
    ['body', error.body],
  ] as const;
  return sections.flatMap(([where, failure]) =>
    (failure?.issues ?? []).map((issue) => {
      const at = (issue.path ?? [])
        .map((key) => String(typeof key === 'object' && key !== null && 'key' in key ? key.key : key))
        .join('.');
      return `${where}${at ? ` ${at}` : ''}: ${issue.message}`;
    }),
  );
}
