// Production asks before anything that moves money or changes an account, unless --yes. Without
// a terminal to ask on, the answer is no: a script must say --yes explicitly.
import { createInterface } from 'node:readline/promises';
import { CliError } from './errors.ts';

export async function confirmOrStop(question: string, options: { yes: boolean; environment: string }): Promise<void> {
  if (options.environment !== 'production' || options.yes) return;
  if (!process.stdin.isTTY)
    throw new CliError(
      `${question} — refused: this is production and there is no terminal to confirm on.`,
      'Pass --yes to confirm in a script (or --dry-run to see the request first).',
    );
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question} [production] Type "yes" to go on: `)).trim().toLowerCase();
    if (answer !== 'yes') throw new CliError('Not confirmed: nothing was sent.');
  } finally {
    rl.close();
  }
}
