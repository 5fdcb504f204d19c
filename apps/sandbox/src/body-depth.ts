// How deeply a parsed request body nests arrays and objects, counted without recursion (a body
// nested 100,000 levels deep must not overflow the stack of the code that measures it).

/** The nesting depth of `value` (a scalar is 0, `{}` and `[]` are 1), counting no further than `limit` + 1. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object' || Buffer.isBuffer(item)) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** A body nested deeper than the sandbox reads: a 400, which each product answers in its own error format. */
export class BodyTooDeepError extends Error {
  override readonly name = 'BodyTooDeepError';
  readonly statusCode = 400;
  readonly code = 'SANDBOX_BODY_TOO_DEEP';
  constructor(limit: number) {
    super(
      `the request body nests arrays and objects more than ${limit} levels deep; no platform request does, and the sandbox could not answer it (send a flatter JSON body)`,
    );
  }
}
