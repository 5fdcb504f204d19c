// The finance console's named operators (console_operators, migration 0021), shared by the console
// (which logs them in) and the CLI (`paykit operators`, which manages them). A password is kept as
// its scrypt hash only (`scrypt$N$r$p$salt$hash`) with N=2^15, r=8, p=3: one of the equivalent
// settings OWASP's Password Storage Cheat Sheet lists beside N=2^17, p=1, at a quarter of its
// memory (32 MiB per check) for the same work. The hash is never returned, logged nor put in an
// error. `credential` moves on at every reset and every disable, which is how a login made before
// either stops being one. Each change, given who made it, writes its row of the console's audit
// trail (console_audit) in the same statement.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Queryable } from './database.ts';
import { StoreInputError } from './errors.ts';

export type OperatorRole = 'viewer' | 'operator';
export type OperatorStatus = 'active' | 'disabled';
export const OPERATOR_ROLES: readonly OperatorRole[] = ['viewer', 'operator'];

export interface Operator {
  name: string;
  role: OperatorRole;
  status: OperatorStatus;
  /** Moves on at every password reset and every disable: a login keeps the one it was made under. */
  credential: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Operator names: lower-case letters, digits and . _ -, starting with a letter, up to 64. */
export const OPERATOR_NAME = /^[a-z][a-z0-9._-]{0,63}$/;
/** The name CONSOLE_PASSWORD's one operator logs in as; no named operator may take it. */
export const PASSWORD_OPERATOR = 'console';
export const MIN_OPERATOR_PASSWORD = 12;
const MAX_PASSWORD = 1024;

const SCRYPT = { N: 32_768, r: 8, p: 3, maxmem: 64 * 1024 * 1024 } as const;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_BYTES, { ...params, maxmem: SCRYPT.maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash` of `password`, with a new random salt. */
export async function hashPassword(password: string): Promise<string> {
  checkPassword(password);
  const salt = randomBytes(16);
  const key = await derive(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `hash` was made from (a comparison in constant time; false for a hash it cannot read). */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const [kind, n, r, p, salt, key] = hash.split('$');
  if (kind !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  if (typeof password !== 'string' || password.length > MAX_PASSWORD || expected.length !== KEY_BYTES) return false;
  const got = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(got, expected);
}

/** A hash no password matches, verified against for an unknown name so that it takes as long as a known one. */
let decoy: Promise<string> | undefined;
const decoyHash = () => (decoy ??= hashPassword(randomBytes(24).toString('base64url')));

/** StoreInputError unless `password` is a password an operator may have; the message never repeats it. */
export function checkPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string') throw new StoreInputError('the password must be a string');
  if (password.length < MIN_OPERATOR_PASSWORD)
    throw new StoreInputError(
      `the password is ${password.length} characters; use at least ${MIN_OPERATOR_PASSWORD} (e.g. openssl rand -base64 18)`,
    );
  if (password.length > MAX_PASSWORD)
    throw new StoreInputError(`the password is ${password.length} characters; use at most ${MAX_PASSWORD}`);
  if (password.trim() !== password)
    throw new StoreInputError(
      'the password starts or ends with whitespace: remove it (a stray newline from a file is the usual cause)',
    );
}

function nameOf(name: unknown): string {
  if (typeof name !== 'string' || !OPERATOR_NAME.test(name))
    throw new StoreInputError(
      'an operator name is lower-case letters, digits and . _ -, starting with a letter, up to 64 characters (e.g. ana.lopez)',
    );
  return name;
}

function roleOf(role: unknown): OperatorRole {
  if (!OPERATOR_ROLES.includes(role as OperatorRole))
    throw new StoreInputError(`the role is one of ${OPERATOR_ROLES.join(', ')}`);
  return role as OperatorRole;
}

interface OperatorRow {
  name: string;
  role: OperatorRole;
  status: OperatorStatus;
  credential: number;
  created_at: Date | string;
  updated_at: Date | string;
}
const COLUMNS = 'name, role, status, credential, created_at, updated_at';
const toOperator = (row: OperatorRow): Operator => ({
  name: row.name,
  role: row.role,
  status: row.status,
  credential: Number(row.credential),
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

/** Who made a change, for the audit trail: a name, and where from (`cli`, an address). */
export interface OperatorActor {
  by: string;
  from: string;
}

export interface OperatorStore {
  /** Adds an active operator; StoreInputError for a bad name, role or password, or a name already taken. */
  add(operator: { name: string; role: OperatorRole; password: string }, actor?: OperatorActor): Promise<Operator>;
  list(): Promise<Operator[]>;
  get(name: string): Promise<Operator | undefined>;
  /** Whether any operator is active: a console with one asks every client for a login. */
  anyActive(): Promise<boolean>;
  /** Sets a new password (and activates the operator); their logins end. undefined when no such operator. */
  reset(name: string, password: string, actor?: OperatorActor): Promise<Operator | undefined>;
  /** Disables the operator; their logins end. undefined when no such operator. */
  disable(name: string, actor?: OperatorActor): Promise<Operator | undefined>;
  /** Sets the role; their logins take it at their next request. undefined when no such operator. */
  setRole(name: string, role: OperatorRole, actor?: OperatorActor): Promise<Operator | undefined>;
  /**
   * The active operator `name` logs in as, when `password` is theirs; undefined otherwise. Takes as
   * long for an unknown or disabled name as for a known one.
   */
  authenticate(name: string, password: string): Promise<Operator | undefined>;
  /**
   * authenticate() in two steps: reads the operator now, and returns the password check, which
   * touches no database (a caller may run it inside a transaction of its own, on PGlite's one
   * connection too).
   */
  verifier(name: string): Promise<(password: string) => Promise<Operator | undefined>>;
}

export function createOperatorStore(db: Queryable): OperatorStore {
  /** The one operator `sql` returns, if any. */
  const one = async (sql: string, values: unknown[]) => {
    const { rows } = await db.query<OperatorRow>(sql, values);
    return rows[0] === undefined ? undefined : toOperator(rows[0]);
  };
  /** `change` (a statement RETURNING the operator), with its audit row when `actor` is given: one statement. */
  const audited = (change: string, values: unknown[], action: string, detail: string, actor?: OperatorActor) => {
    const n = values.length;
    return one(
      `WITH op AS (${change}),
         audit AS (INSERT INTO console_audit (at, operator, address, action, target, outcome, detail)
                   SELECT now(), $${n + 1}, $${n + 2}, $${n + 3}, op.name, 'success', $${n + 4} FROM op
                   WHERE $${n + 1}::text IS NOT NULL)
       SELECT * FROM op`,
      [...values, actor?.by.slice(0, 500) ?? null, actor?.from.slice(0, 500) ?? null, action, detail],
    );
  };
  const verifier: OperatorStore['verifier'] = async (name) => {
    const known =
      typeof name === 'string' && OPERATOR_NAME.test(name)
        ? (
            await db.query<OperatorRow & { password_hash: string }>(
              `SELECT ${COLUMNS}, password_hash FROM console_operators WHERE name = $1`,
              [name],
            )
          ).rows[0]
        : undefined;
    const hash = known?.password_hash ?? (await decoyHash());
    return async (password) => {
      const right = await verifyPassword(String(password), hash);
      return right && known !== undefined && known.status === 'active' ? toOperator(known) : undefined;
    };
  };
  return {
    async add(operator, actor) {
      const name = nameOf(operator.name);
      if (name === PASSWORD_OPERATOR)
        throw new StoreInputError(`"${PASSWORD_OPERATOR}" is CONSOLE_PASSWORD's operator: choose another name`);
      const role = roleOf(operator.role);
      const hash = await hashPassword(operator.password);
      const added = await audited(
        `INSERT INTO console_operators (name, role, password_hash) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
        [name, role, hash],
        'operator-add',
        `as ${role}`,
        actor,
      );
      if (added === undefined)
        throw new StoreInputError(`an operator named ${name} exists: reset their password or choose another name`);
      return added;
    },
    async list() {
      const { rows } = await db.query<OperatorRow>(`SELECT ${COLUMNS} FROM console_operators ORDER BY name`);
      return rows.map(toOperator);
    },
    async get(name) {
      if (typeof name !== 'string' || !OPERATOR_NAME.test(name)) return undefined;
      return one(`SELECT ${COLUMNS} FROM console_operators WHERE name = $1`, [name]);
    },
    async anyActive() {
      const { rows } = await db.query("SELECT 1 FROM console_operators WHERE status = 'active' LIMIT 1");
      return rows.length > 0;
    },
    async reset(name, password, actor) {
      const hash = await hashPassword(password);
      return audited(
        `UPDATE console_operators SET password_hash = $2, status = 'active', credential = credential + 1, updated_at = now()
         WHERE name = $1 RETURNING ${COLUMNS}`,
        [nameOf(name), hash],
        'operator-reset',
        'a new password; their logins ended',
        actor,
      );
    },
    async disable(name, actor) {
      return audited(
        `UPDATE console_operators SET status = 'disabled',
           credential = CASE WHEN status = 'disabled' THEN credential ELSE credential + 1 END, updated_at = now()
         WHERE name = $1 RETURNING ${COLUMNS}`,
        [nameOf(name)],
        'operator-disable',
        'their logins ended',
        actor,
      );
    },
    async setRole(name, role, actor) {
      const to = roleOf(role);
      return audited(
        `UPDATE console_operators SET role = $2, updated_at = now() WHERE name = $1 RETURNING ${COLUMNS}`,
        [nameOf(name), to],
        'operator-role',
        `to ${to}`,
        actor,
      );
    },
    async authenticate(name, password) {
      return (await verifier(name))(password);
    },
    verifier,
  };
}
