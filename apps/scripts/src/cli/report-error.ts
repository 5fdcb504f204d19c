// How a failure is told: what went wrong and what to do, on stderr (JSON with --json), never a
// secret; and the exit code it means.
import { ApiError, PaykitError, UnauthorizedError, redactBody } from '@paykit/runtime';
import { DryRunStop, capturedDryRun } from './dry-run.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from './errors.ts';
import { maskKnown } from './secrets.ts';

function write(json: boolean, payload: Record<string, unknown>, text: string): void {
  process.stderr.write(`${maskKnown(json ? JSON.stringify(payload) : text)}\n`);
}

export function report(error: unknown, json: boolean): number {
  const dryRun = error instanceof DryRunStop ? error.request : capturedDryRun();
  if (dryRun) {
    // The one request that would have changed something, shown instead of sent.
    process.stdout.write(`${maskKnown(JSON.stringify({ dryRun: true, request: redactBody(dryRun) }, null, 2))}\n`);
    return EXIT_OK;
  }
  if (error instanceof UsageError) {
    write(json, { error: { type: 'usage', message: error.message } }, `error: ${error.message}`);
    return EXIT_USAGE;
  }
  if (error instanceof CliError) {
    write(
      json,
      { error: { type: 'failed', message: error.message, hint: error.hint } },
      `error: ${error.message}${error.hint ? `\n${error.hint}` : ''}`,
    );
    return EXIT_FAILURE;
  }
  if (error instanceof PaykitError) {
    // The clients' errors say what to check already; a 401 names environment, client, credential and token.
    const hint =
      error instanceof UnauthorizedError
        ? 'Check, in this order: the profile’s environment, the client id, the credential (ACTIVE, same environment) and the token or key.'
        : undefined;
    const status = error instanceof ApiError ? error.status : undefined;
    write(
      json,
      { error: { type: error.name, status, message: error.message, hint } },
      `error: ${error.message}${hint ? `\n${hint}` : ''}`,
    );
    return EXIT_FAILURE;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(json, { error: { type: 'unexpected', message } }, `error: ${message}`);
  return EXIT_FAILURE;
}
