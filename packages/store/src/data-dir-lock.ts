// PGlite serves one process, and nothing in it stops a second process (or a second PGlite in this
// one) from opening the same folder and corrupting it. A lock file beside the folder does: it holds
// the owner's pid, and a lock whose process is gone is taken over.
import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { StoreConfigError } from './errors.ts';

/** Takes `<dataDir>.lock` or throws StoreConfigError naming the process that holds it; returns the release function. */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockPath = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StoreConfigError(
          `cannot create the lock file ${lockPath}: ${(error as Error).message}; check the folder's permissions`,
        );
      }
    }
    const ownerText = readOwner(lockPath);
    if (ownerText === undefined) continue; // released meanwhile: try again
    const owner = Number(ownerText);
    if (!/^\d+$/.test(ownerText)) {
      // Empty: another process is writing its pid this very moment (or died doing so).
      throw new StoreConfigError(
        `PGlite at ${dataDir} is being opened by another process; if none uses it, delete ${lockPath}`,
      );
    }
    if (isAlive(owner)) {
      const who = owner === process.pid ? 'this process already has it open' : `process ${owner} has it open`;
      throw new StoreConfigError(
        `PGlite at ${dataDir} is in use: ${who}. PGlite serves one process: set DATABASE_URL to share a PostgreSQL server between processes, or give each its own PAYKIT_DATA_DIR`,
      );
    }
    // The owner died without releasing the lock: take it over.
    try {
      unlinkSync(lockPath);
    } catch {
      // Someone else took it over first; the next attempt sees their lock.
    }
  }
  throw new StoreConfigError(
    `cannot take the lock ${lockPath}: another process keeps taking it; stop the other processes using ${dataDir}`,
  );
}

function readOwner(lockPath: string): string | undefined {
  try {
    return readFileSync(lockPath, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
