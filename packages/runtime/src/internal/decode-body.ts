// Response bodies as fetch gives them: every coding of Content-Encoding undone. undici
// hands over the bytes as they came (its decompress interceptor streams, and leaves codings it
// does not know half-done); an answer here is small JSON, so it is decoded in one synchronous step.
import zlib from 'node:zlib';

const KNOWN_CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br', ...('zstdDecompressSync' in zlib ? ['zstd'] : [])]);

/** The body with every coding undone, last applied first; undefined (keep the bytes as sent, like fetch) for a coding it does not know. */
export function decodeBody(body: Uint8Array, contentEncoding: string): Uint8Array | undefined {
  let bytes = body;
  const codings = contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0 || !codings.every((coding) => KNOWN_CODINGS.has(coding))) return undefined;
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip')
      bytes = zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    else if (coding === 'deflate')
      bytes = bytes[0] !== undefined && (bytes[0] & 0x0f) === 8 ? zlib.inflateSync(bytes) : zlib.inflateRawSync(bytes);
    else if (coding === 'br') bytes = zlib.brotliDecompressSync(bytes);
    else bytes = (zlib as unknown as { zstdDecompressSync(b: Uint8Array): Buffer }).zstdDecompressSync(bytes);
  }
  return bytes;
}
