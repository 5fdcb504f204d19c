// A webhook body as a receiver holds it (the raw bytes, their text, or the JSON already parsed),
// read as JSON. Shared by the clients' event parsers, which each name their own error.

/** The JSON value of `body`; a string or bytes that are not JSON throw what `notJson` builds. */
export function webhookJson(body: unknown, notJson: () => Error): unknown {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: false }).decode(body);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw notJson();
  }
}
