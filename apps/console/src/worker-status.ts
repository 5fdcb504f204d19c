// What the overview says of the worker: how many events it applied, whether its last round failed,
// and whether the books held when it last checked them. The worker is another process (on another
// machine, perhaps): its /healthz says all three, read with a short deadline when the overview is
// drawn, at CONSOLE_WORKER_URL. Without the address, or when it does not answer in time, the
// overview says the worker's progress is not known (the ledger's figures come from the database).

/** The books as the worker last checked them (the worker's /healthz `books`). */
export interface BooksStatus {
  ok: boolean;
  checkedAt: string;
  throughPosting: string;
  failure: {
    unbalancedPostings: string[];
    itemsOff: Array<{ item: string; account: string; booked: string; expected: string }>;
  } | null;
}

export interface WorkerStatus {
  /** Events the worker applied since it started. */
  applied: number;
  lastError: string | null;
  /** null before its first check. */
  books: BooksStatus | null;
}

/** How long the overview waits for the worker's /healthz. */
const WORKER_DEADLINE_MS = 1_000;

/** Reads the worker's /healthz at `workerUrl`; null when it does not answer in time or answers something else. */
export function workerStatusFrom(workerUrl: string): () => Promise<WorkerStatus | null> {
  const url = new URL('/healthz', workerUrl);
  return async () => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(WORKER_DEADLINE_MS), redirect: 'error' });
      if (!response.ok) return null;
      const health = (await response.json()) as Partial<WorkerStatus>;
      if (typeof health.applied !== 'number') return null;
      return {
        applied: health.applied,
        lastError: typeof health.lastError === 'string' ? health.lastError : null,
        books: health.books && typeof health.books.ok === 'boolean' ? health.books : null,
      };
    } catch {
      return null;
    }
  };
}
