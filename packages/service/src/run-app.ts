// How every app runs as a process (its main.ts): read the configuration (a ConfigError: its
// problems on stderr, exit 2), start (a failure: "The <app> could not start: …", exit 1), print
// the app's `listening on <url>` lines, and on SIGINT or SIGTERM stop once, within the stop
// deadline (past it: exit 1 with the app's note on what that cut short).
import { ConfigError, type AppIdentity } from './config.ts';

/**
 * The longest a stop may take (supervisors send SIGKILL after 10 s). Every wait in an app's stop
 * is bounded already; this is the last resort.
 */
export const STOP_TIMEOUT_MS = 9_000;

/** What an app leaves running once started. */
export interface RunningApp {
  /** Printed on stdout once it runs; the first reads `listening on <url> …` (what starters wait for). */
  listening: string[];
  /** Told which signal stops it (`stopping`). */
  logger?: { info(fields: { signal: string }, message: string): void } | undefined;
  /** Stops it: what is in flight is finished, then everything it opened is closed. */
  close(): Promise<void>;
}

export interface AppDefinition<Config> extends AppIdentity {
  /** How stop messages name it, when shorter: "gateway" (The gateway did not stop cleanly: …). */
  shortName?: string;
  /** What the stop deadline cuts short, said after "exiting now" (e.g. "(nothing unanswered was acknowledged)"). */
  stopTimeoutNote?: string;
  loadConfig(): Config;
  start(config: Config): Promise<RunningApp>;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Runs `app` as this process; the process exits when it stops. */
export async function runApp<Config>(app: AppDefinition<Config>): Promise<void> {
  const shortName = app.shortName ?? app.name;
  let config: Config;
  try {
    config = app.loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }

  let running: RunningApp;
  try {
    running = await app.start(config);
  } catch (error) {
    // A problem only the start could see (one that needs the database, say) is the configuration's too.
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(`The ${app.name} could not start: ${messageOf(error)}`);
    process.exit(1);
  }
  for (const line of running.listening) console.log(line);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.logger?.info({ signal }, 'stopping');
    setTimeout(() => {
      console.error(
        `The ${shortName} did not stop within ${STOP_TIMEOUT_MS / 1000} s; exiting now${app.stopTimeoutNote ? ` ${app.stopTimeoutNote}` : ''}`,
      );
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`The ${shortName} did not stop cleanly: ${messageOf(error)}`);
        process.exit(1);
      },
    );
  };
  // `on`, and stop() runs once: through pnpm, Ctrl-C arrives twice (from the terminal, and passed on
  // by pnpm), and a second signal must not end the process before what is in flight is committed.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
