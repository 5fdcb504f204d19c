// The benchmark's knobs, from the environment, each checked with a message saying what to set.
import { existsSync } from 'node:fs';
import { CONTENDER_NAMES, CONTENDERS, type ContenderName } from './contenders.ts';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchConfig {
  /** A PostgreSQL server and a user that may CREATE DATABASE (DATABASE_URL). */
  adminUrl: string;
  /** In run order: the one whose peak sets the paced rate first (the gateway whenever it runs). */
  contenders: ContenderName[];
  /** Length of the peak and of the paced run, per contender (BENCH_SECONDS, default 10). */
  seconds: number;
  /** Each phase is cut in this many slices, the contenders taking turns (BENCH_ROUNDS, default 3). */
  rounds: number;
  warmupSeconds: number;
  /** Connections of the peak run, and most sockets open at once in the paced run (BENCH_CONNECTIONS, default 64). */
  connections: number;
}

export class BenchConfigError extends Error {
  override name = 'BenchConfigError';
}

/** The whole number in env[name] (fallback when unset), or a line in `problems` saying what to set. */
export function wholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    problems.push(`${name}="${text}": give a whole number from ${min} to ${max} (default ${fallback}).`);
  return value;
}

export function readBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const problems: string[] = [];
  const adminUrl = env.DATABASE_URL || DEFAULT_ADMIN_URL;
  let parsed: URL | undefined;
  try {
    parsed = new URL(adminUrl);
  } catch {
    // The value itself is not repeated: it may hold a password.
    problems.push(
      'DATABASE_URL is not a URL: give the admin connection, e.g. postgres://postgres@127.0.0.1:5432/postgres.',
    );
  }
  if (parsed && parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    problems.push(
      `DATABASE_URL uses "${parsed.protocol}": the benchmark needs a real PostgreSQL server (postgres://user@host:port/database).`,
    );
  }

  const names = (env.BENCH_CONTENDERS || CONTENDER_NAMES.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  const unknown = names.filter((name) => !(CONTENDER_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0)
    problems.push(
      `BENCH_CONTENDERS names ${unknown.map((n) => `"${n}"`).join(', ')}: choose among ${CONTENDER_NAMES.join(', ')} (comma-separated).`,
    );
  const contenders = [
    ...new Set(names.filter((name): name is ContenderName => (CONTENDER_NAMES as readonly string[]).includes(name))),
  ];
  if (contenders.length === 0 && unknown.length === 0)
    problems.push(`BENCH_CONTENDERS is empty: choose among ${CONTENDER_NAMES.join(', ')}.`);
  // The gateway's peak sets the rate every contender is paced at, so it runs first.
  contenders.sort((a, b) => Number(b === 'gateway') - Number(a === 'gateway'));
  if (contenders.includes('gateway') && !existsSync(CONTENDERS.gateway.entry)) {
    problems.push(
      `The gateway's entry point ${CONTENDERS.gateway.entry} does not exist yet: build the gateway, or run the baselines alone with BENCH_CONTENDERS=minimal,express.`,
    );
  }

  const seconds = wholeNumber(env, 'BENCH_SECONDS', 10, 1, 120, problems);
  const rounds = wholeNumber(env, 'BENCH_ROUNDS', 3, 1, 10, problems);
  const connections = wholeNumber(env, 'BENCH_CONNECTIONS', 64, 1, 1024, problems);
  if (problems.length > 0) throw new BenchConfigError(problems.join('\n'));
  return { adminUrl, contenders, seconds, rounds, warmupSeconds: 2, connections };
}

/**
 * For the one-contender tools (intake-profile.ts, intake-instructions.ts): the contender named by
 * the first argument (default gateway) and the benchmark's knobs, or a message on stderr and exit 2.
 */
export function readOneContenderOrExit(
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
): { name: ContenderName; config: BenchConfig } {
  const name = argv[2] ?? 'gateway';
  if (!(CONTENDER_NAMES as readonly string[]).includes(name)) {
    console.error(`Unknown contender "${name}": choose among ${CONTENDER_NAMES.join(', ')}.`);
    process.exit(2);
  }
  try {
    return { name: name as ContenderName, config: readBenchConfig({ ...env, BENCH_CONTENDERS: name }) };
  } catch (error) {
    if (!(error instanceof BenchConfigError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}
