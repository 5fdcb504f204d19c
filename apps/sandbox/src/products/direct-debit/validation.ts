// The direct debit service answers validation failures the way a FastAPI service does: 422 with
// `{ detail: [{ loc, msg, type }] }` (the reference shows that shape; the `type` and `msg`
// values follow pydantic's, which is what that shape comes from). Everything that can go wrong
// with a request body — malformed JSON, an empty body, a non-JSON body, an oversize body — ends
// up as such a 422, never as a 500.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type * as z from 'zod';
import type { Schema } from './spec.ts';

/** One item of the 422 body (the spec's ValidationErrorItem; the sandbox always fills all three fields). */
export type DetailItem = Required<Schema<'ValidationErrorItem'>>;

/** Thrown by handlers; the scope's error handler turns it into the 422 answer. */
export class ValidationFailure extends Error {
  readonly detail: DetailItem[];

  constructor(detail: DetailItem[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
    this.detail = detail;
  }
}

/** The value at `path` inside `data`, or undefined when any step is missing. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const TYPE_NAMES: Record<string, { type: string; msg: string }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string' },
  number: { type: 'float_type', msg: 'Input should be a valid number' },
  int: { type: 'int_type', msg: 'Input should be a valid integer' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  object: { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' },
  record: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
  array: { type: 'list_type', msg: 'Input should be a valid list' },
};

/** One zod issue as a FastAPI detail item; `root` is the loc's first segment ('body', 'query'). */
function issueToDetail(issue: z.core.$ZodIssue, data: unknown, root: string): DetailItem {
  const path = issue.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number');
  const loc = [root, ...path];
  switch (issue.code) {
    case 'invalid_type': {
      if (valueAt(data, issue.path) === undefined) return { loc, msg: 'Field required', type: 'missing' };
      const known = TYPE_NAMES[issue.expected];
      return known
        ? { loc, ...known }
        : { loc, msg: `Input should be a valid ${issue.expected}`, type: `${issue.expected}_type` };
    }
    case 'invalid_format':
      if (issue.format === 'email')
        return {
          loc,
          msg: 'value is not a valid email address: it must have exactly one @-sign and a domain',
          type: 'value_error',
        };
      if (issue.format === 'regex' && 'pattern' in issue && typeof issue.pattern === 'string') {
        return { loc, msg: `String should match pattern '${issue.pattern}'`, type: 'string_pattern_mismatch' };
      }
      if (issue.format === 'uuid') return { loc, msg: 'Input should be a valid UUID', type: 'uuid_parsing' };
      return { loc, msg: `Value error, ${issue.message}`, type: 'value_error' };
    case 'invalid_union': {
      // A nullable field given the wrong type: report it as its non-null type.
      const inner = issue.errors[0]?.[0];
      return inner
        ? issueToDetail({ ...inner, path: [...issue.path, ...inner.path] }, data, root)
        : { loc, msg: `Value error, ${issue.message}`, type: 'value_error' };
    }
    default:
      return { loc, msg: `Value error, ${issue.message}`, type: 'value_error' };
  }
}

/** Parses `data` with `schema`, or throws the 422 detail of every issue. */
export function parseOr422<S extends z.ZodType>(schema: S, data: unknown, root = 'body'): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw new ValidationFailure(result.error.issues.map((issue) => issueToDetail(issue, data, root)));
}

/**
 * FastAPI reads a body as JSON when its content type is JSON (`application/json`, `…+json`) or
 * missing; any other body is kept as text and then fails validation as "not an object".
 */
function installBodyParser(app: FastifyInstance): void {
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === '' || type.endsWith('+json')) {
      if (body.length === 0) return done(null, undefined);
      try {
        done(null, JSON.parse(body.toString('utf8')));
      } catch {
        done(
          Object.assign(new Error('JSON decode error'), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }),
          undefined,
        );
      }
      return;
    }
    done(null, body.toString('utf8'));
  });
}

function send422(reply: FastifyReply, detail: DetailItem[]): FastifyReply {
  return reply.code(422).send({ detail } satisfies Schema<'ValidationError'>);
}

/** Every failure inside the direct debit scope becomes a 422 detail (or 401/404 in its own format). */
export function installDirectDebitErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  installBodyParser(app);
  app.setErrorHandler((error: FastifyError | ValidationFailure, request, reply) => {
    if (error instanceof ValidationFailure) return send422(reply, error.detail);
    const status = error.statusCode ?? 500;
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
      return send422(reply, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
    if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return send422(reply, [{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    // sandbox choice: the reference shows no body limit; an oversize body is a 422 on ['body'].
    if (status === 413)
      return send422(reply, [
        {
          loc: ['body'],
          msg: `Value error, the request body is larger than ${bodyLimitBytes} bytes`,
          type: 'value_error',
        },
      ]);
    if (status === 415)
      return send422(reply, [{ loc: ['body'], msg: TYPE_NAMES.object!.msg, type: 'model_attributes_type' }]);
    if (status >= 400 && status < 500)
      return send422(reply, [{ loc: ['body'], msg: `Value error, ${error.message}`, type: 'value_error' }]);
    request.log.error({ err: error }, 'direct debit handler failed');
    return reply.code(500).send({ detail: 'Internal Server Error' });
  });
  // FastAPI's answer for an unknown path.
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ detail: 'Not Found' }));
}
