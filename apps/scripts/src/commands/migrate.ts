// `paykit migrate money-out`: the codemod of @paykit/codemods over a code base — a dry-run diff by
// default, --write to apply, and every call it could not rewrite safely listed with file and line.
import type { Context } from '../cli/context.ts';
import { UsageError } from '../cli/errors.ts';

export async function migrateMoneyOut(ctx: Context, paths: string[], options: { write?: boolean }): Promise<void> {
  const codemods = await import('@paykit/codemods');
  let report;
  try {
    report = await codemods.migrateMoneyOut({ paths: paths.length > 0 ? paths : ['.'], write: options.write ?? false });
  } catch (error) {
    if (error instanceof codemods.CodemodInputError) throw new UsageError(error.message);
    throw error;
  }
  if (ctx.out.json) ctx.out.result(report);
  else process.stdout.write(`${codemods.formatMoneyOutReport(report)}\n`);
  // Calls left as they were need a person: a script can tell from the exit code.
  if (report.skipped.length > 0) process.exitCode = 1;
}
