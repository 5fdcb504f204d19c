// CPU time of other processes (the contender, its PostgreSQL backends), read from /proc: the
// profiler divides it by the deliveries answered to get CPU per delivery, a figure that holds on
// a busy shared machine where throughput does not.
import { readFileSync } from 'node:fs';
import pg from 'pg';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface CpuTimes {
  user: number;
  system: number;
}

/** User and system CPU seconds of `pid` so far; undefined once it is gone (or off Linux). */
export function cpuTimesOf(pid: number): CpuTimes | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15, i.e. 12 and 13 after the command name.
  return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
}

/** User + system CPU seconds of `pid` so far; undefined once it is gone. */
export function cpuSecondsOf(pid: number): number | undefined {
  const times = cpuTimesOf(pid);
  return times && times.user + times.system;
}

/** The server processes serving connections to database `name` (pg_stat_activity), asked through `adminUrl`. */
export async function backendPids(adminUrl: string, name: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}
