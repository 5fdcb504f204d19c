// Reading the parts of a core request (path ids, JSON bodies) with the generated zod schemas and
// turning every failure into the core's 400: MISSING_REQUIRED_FIELDS when a required field is
// absent, DATA_ERROR when something is present but malformed. Messages name fields, never values
// (a body may carry a client_secret or a webhook token).
import type * as z from 'zod';
import { CoreHttpError } from '../errors.ts';

/** Path parameters read with the operation's generated path schema: 400 DATA_ERROR when malformed. */
export function parsePath<S extends z.ZodType>(schema: S, params: unknown): z.output<S> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const names = [...new Set(result.error.issues.map((issue) => issue.path.join('.')))].join(', ');
  throw new CoreHttpError(400, 'DATA_ERROR', `Malformed path parameter(s): ${names} (a UUID is expected).`);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** Parses `body` with a generated request schema; 400 with the core error body on failure. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, operation: string): z.output<S> {
  if (body === undefined || body === null) {
    throw new CoreHttpError(400, 'MISSING_REQUIRED_FIELDS', `${operation}: send a JSON object as the request body.`);
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const missing = issues
    .filter((issue) => issue.path.length > 0 && valueAt(body, issue.path) === undefined)
    .map((issue) => issue.path.join('.'));
  if (missing.length > 0) {
    throw new CoreHttpError(
      400,
      'MISSING_REQUIRED_FIELDS',
      `${operation}: missing required field(s): ${[...new Set(missing)].join(', ')}.`,
    );
  }
  const described = issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  );
  throw new CoreHttpError(400, 'DATA_ERROR', `${operation}: malformed request body (${described.join('; ')}).`);
}
