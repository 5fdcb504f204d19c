import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../src/index.ts';

const T0 = '2026-05-07T18:00:00.000Z';

describe('the sandbox clock', () => {
  it('stands still in manual mode and runs due tasks in order, each at its own instant', async () => {
    const clock = new SandboxClock({ mode: 'manual', start: T0 });
    const seen: string[] = [];
    clock.after(2000, 'b', () => void seen.push(`b@${clock.now().toISOString()}`));
    clock.after(1000, 'a', () => void seen.push(`a@${clock.now().toISOString()}`));
    clock.after(2000, 'c', () => void seen.push(`c@${clock.now().toISOString()}`));
    expect(clock.now().toISOString()).toBe(T0);
    await clock.advance(1500);
    expect(seen).toEqual(['a@2026-05-07T18:00:01.000Z']);
    await clock.advance(10_000);
    expect(seen).toEqual(['a@2026-05-07T18:00:01.000Z', 'b@2026-05-07T18:00:02.000Z', 'c@2026-05-07T18:00:02.000Z']);
    expect(clock.now().toISOString()).toBe('2026-05-07T18:00:11.500Z');
    clock.stop();
  });

  it('runs tasks that tasks schedule within the same advance, and not after cancel', async () => {
    const clock = new SandboxClock({ mode: 'manual', start: T0 });
    const seen: number[] = [];
    clock.after(1000, 'first', () => {
      seen.push(clock.nowMs());
      clock.after(1000, 'second', () => void seen.push(clock.nowMs()));
    });
    const cancelled = clock.after(500, 'cancelled', () => void seen.push(-1));
    clock.cancel(cancelled);
    await clock.advance(5000);
    const t0 = Date.parse(T0);
    expect(seen).toEqual([t0 + 1000, t0 + 2000]);
    clock.stop();
  });

  it('keeps going when a task throws, and records the failure', async () => {
    const clock = new SandboxClock({ mode: 'manual', start: T0 });
    let ran = false;
    clock.after(1, 'boom', () => {
      throw new Error('boom');
    });
    clock.after(2, 'after', () => {
      ran = true;
    });
    await clock.advance(10);
    expect(ran).toBe(true);
    expect(clock.failures.map((f) => f.label)).toEqual(['boom']);
    clock.stop();
  });

  it('never moves backwards', async () => {
    const clock = new SandboxClock({ mode: 'manual', start: T0 });
    await expect(clock.setTo(Date.parse(T0) - 1)).rejects.toThrow(/Cannot move the clock back/);
    await expect(clock.advance(-1)).rejects.toThrow(/only forward/);
    clock.stop();
  });

  it('follows wall time in real mode, shifted by advance()', async () => {
    const clock = new SandboxClock({ mode: 'real', start: T0 });
    const before = clock.nowMs();
    await clock.advance(3600_000);
    expect(clock.nowMs() - before).toBeGreaterThanOrEqual(3600_000);
    let ran = false;
    clock.after(0, 'due now', () => {
      ran = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ran).toBe(true);
    clock.stop();
  });

  it('rejects a start that is not a date', () => {
    expect(() => new SandboxClock({ start: 'yesterday-ish' })).toThrow(/is not a date/);
  });
});
