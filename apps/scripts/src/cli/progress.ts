// A progress line on stderr for anything that pages or imports: redrawn in place on a terminal,
// one line every so often otherwise, nothing with --json (stdout stays the result).
export interface Progress {
  tick(count?: number, note?: string): void;
  done(note?: string): void;
}

export function progress(label: string, options: { enabled: boolean; total?: number }): Progress {
  if (!options.enabled) return { tick: () => {}, done: () => {} };
  const tty = process.stderr.isTTY === true;
  let count = 0;
  let lastDrawn = 0;
  const line = (note?: string) => {
    const total = options.total;
    const bar = total
      ? `[${'#'.repeat(Math.round((20 * Math.min(count, total)) / total)).padEnd(20, '.')}] ${count}/${total}`
      : `${count}`;
    return `${label} ${bar}${note ? ` ${note}` : ''}`;
  };
  return {
    tick(by = 1, note) {
      count += by;
      const now = Date.now();
      if (tty && now - lastDrawn > 50) {
        process.stderr.write(`\r${line(note)}`);
        lastDrawn = now;
      } else if (!tty && now - lastDrawn > 2000) {
        process.stderr.write(`${line(note)}\n`);
        lastDrawn = now;
      }
    },
    done(note) {
      process.stderr.write(`${tty ? '\r' : ''}${line(note)}\n`);
    },
  };
}
