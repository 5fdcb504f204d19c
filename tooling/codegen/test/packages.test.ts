// The seven client packages, imported by name the way another workspace package imports them:
// in a plain Node 24 process (no test-runner transforms), through each package's exports map.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PRODUCTS, REPO_ROOT } from '../src/index.ts';

const run = promisify(execFile);

describe('client packages', () => {
  it.each(PRODUCTS.map((p) => [p.id]))(
    '@paykit/%s-client exports its SDK, zod schemas and API_VERSION, and no client of its own',
    async (id) => {
      const script = `
      const sdk = await import('@paykit/${id}-client');
      const zod = await import('@paykit/${id}-client/zod');
      console.log(JSON.stringify({
        version: sdk.API_VERSION,
        product: sdk.PRODUCT,
        // The SDK is given the runtime's client (createSdkClient) on every call: no bundled
        // hey-api client, no default instance.
        own: ['client', 'createClient', 'createConfig'].filter((k) => k in sdk),
        functions: Object.keys(sdk).filter((k) => typeof sdk[k] === 'function').length,
        schemas: Object.keys(zod).filter((k) => k.startsWith('z')).length,
      }));`;
      // Resolved from tooling/codegen, which lists the client packages as workspace dependencies.
      const { stdout } = await run(
        process.execPath,
        ['--conditions=@paykit/source', '--input-type=module', '-e', script],
        {
          cwd: path.join(REPO_ROOT, 'tooling/codegen'),
        },
      );
      const seen = JSON.parse(stdout);
      expect(seen.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(seen.product).toBe(id);
      expect(seen.own).toEqual([]);
      expect(seen.functions).toBeGreaterThanOrEqual(3);
      expect(seen.schemas).toBeGreaterThanOrEqual(1);
    },
  );
});
