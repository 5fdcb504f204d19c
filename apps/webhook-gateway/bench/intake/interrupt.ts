// Ctrl-C in the middle of a run must not leave contenders running or bench databases behind.
const cleanups = new Set<() => Promise<void>>();

/** Registers a clean-up to run if the bench is interrupted; returns its removal, for the normal path. */
export function onInterrupt(cleanup: () => Promise<void>): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

export function installInterruptHandler(): void {
  const handle = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the contenders and dropping the bench databases…`);
    // Newest first: a process is stopped before the database it uses is dropped.
    const pending = [...cleanups].reverse();
    void (async () => {
      for (const cleanup of pending)
        await cleanup().catch((error: unknown) => console.error(`clean-up failed: ${(error as Error).message}`));
      process.exit(130);
    })();
  };
  process.once('SIGINT', handle);
  process.once('SIGTERM', handle);
}
