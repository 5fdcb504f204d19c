// The core bearer token: a real JWT (HS256) so clients that decode it see the shape they would
// see on the platform. The sandbox never trusts the signature to authenticate a call: requireBearer
// looks the token string up in the state, so tokens expire and vanish on reset like the
// platform's. The signing key is drawn from the seeded generator once per CoreService: a seeded
// run issues the same tokens, and the key never leaves the sandbox.
import { createHmac } from 'node:crypto';
import type { CoreService } from '../index.ts';
import type { Environment } from '../state.ts';

const signingKeys = new WeakMap<CoreService, Buffer>();

function signingKey(core: CoreService): Buffer {
  let key = signingKeys.get(core);
  if (!key) {
    key = core.runtime.random.bytes(32);
    signingKeys.set(core, key);
  }
  return key;
}

export interface TokenClaims {
  /** The client id. */
  sub: string;
  env: Environment;
  /** The credential the token was created with. */
  cred: string;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
  /** The token's id: unique per creation, so two tokens created in the same second differ. */
  jti: string;
}

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

export function signToken(core: CoreService, claims: TokenClaims): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ iss: 'paykit-sandbox', ...claims }));
  const signature = createHmac('sha256', signingKey(core)).update(`${header}.${payload}`).digest();
  return `${header}.${payload}.${base64url(signature)}`;
}
