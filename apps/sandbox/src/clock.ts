// The sandbox clock: every lifecycle (token expiry, CEP lookups, SPEI settlement, redelivery)
// runs on it, so a test can move days in milliseconds and a run is repeatable.
// - 'real' mode: sandbox time = wall time + offset; due tasks run by themselves.
// - 'manual' mode: time stands still until advance()/set(); due tasks run then, in order.

export type ClockMode = 'real' | 'manual';

export interface ClockOptions {
  mode?: ClockMode;
  /** Sandbox time at start (default: now). */
  start?: Date | string;
}

interface Task {
  id: number;
  due: number;
  label: string;
  run: () => void | Promise<void>;
}

export class SandboxClock {
  readonly mode: ClockMode;
  #offset: number;
  #manualNow: number;
  #tasks: Task[] = [];
  #nextId = 1;
  #ticker: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  /** Errors thrown by tasks; a task's failure never stops the clock. */
  readonly failures: { label: string; error: unknown }[] = [];

  constructor({ mode = 'real', start }: ClockOptions = {}) {
    this.mode = mode;
    const startMs = start === undefined ? Date.now() : new Date(start).getTime();
    if (Number.isNaN(startMs)) throw new Error(`Clock start "${String(start)}" is not a date.`);
    this.#offset = startMs - Date.now();
    this.#manualNow = startMs;
    if (mode === 'real') {
      this.#ticker = setInterval(() => void this.#runDue(this.nowMs()), 25);
      this.#ticker.unref();
    }
  }

  nowMs(): number {
    return this.mode === 'real' ? Date.now() + this.#offset : this.#manualNow;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  get pendingTasks(): number {
    return this.#tasks.length;
  }

  /** Runs `run` when sandbox time reaches `dueMs` (at once if it already has, on the next turn). */
  schedule(dueMs: number, label: string, run: () => void | Promise<void>): number {
    const task = { id: this.#nextId++, due: dueMs, label, run };
    // Stable: equal due times run in the order they were scheduled.
    const at = this.#tasks.findIndex((t) => t.due > dueMs);
    if (at === -1) this.#tasks.push(task);
    else this.#tasks.splice(at, 0, task);
    if (this.mode === 'real' && dueMs <= this.nowMs()) queueMicrotask(() => void this.#runDue(this.nowMs()));
    return task.id;
  }

  after(ms: number, label: string, run: () => void | Promise<void>): number {
    return this.schedule(this.nowMs() + ms, label, run);
  }

  cancel(id: number): void {
    this.#tasks = this.#tasks.filter((t) => t.id !== id);
  }

  /** Moves time forward by `ms`, running every task that falls due, each at its own instant. */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new Error(`Cannot move the clock by ${ms} ms: only forward.`);
    await this.setTo(this.nowMs() + ms);
  }

  /** Moves time forward to `target` (never backwards: lifecycles already run cannot be undone). */
  async setTo(target: number): Promise<void> {
    if (target < this.nowMs()) throw new Error(`Cannot move the clock back to ${new Date(target).toISOString()}.`);
    if (this.mode === 'real') {
      this.#offset += target - this.nowMs();
      await this.#runDue(target);
      return;
    }
    await this.#runDue(target);
    this.#manualNow = target;
  }

  /** Runs due tasks one at a time; tasks scheduled while running are picked up in order. */
  #runDue(until: number): Promise<void> {
    this.#running = this.#running.then(async () => {
      for (;;) {
        const next = this.#tasks[0];
        if (!next || next.due > until) break;
        this.#tasks.shift();
        if (this.mode === 'manual') this.#manualNow = Math.max(this.#manualNow, next.due);
        try {
          await next.run();
        } catch (error) {
          this.failures.push({ label: next.label, error });
        }
      }
    });
    return this.#running;
  }

  /** Waits for the tasks running now to finish. */
  idle(): Promise<void> {
    return this.#running;
  }

  stop(): void {
    if (this.#ticker) clearInterval(this.#ticker);
    this.#tasks = [];
  }
}
