// The `paykit` command tree. Only names, options and help live here; each action loads its
// module when it runs, so `paykit --help` starts without loading a single client.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import type { Context, GlobalFlags } from './cli/context.ts';

type Handler = (ctx: Context, ...args: never[]) => Promise<void>;

/** An action: builds the Context from the global flags, then runs the handler with the command's arguments and options. */
function act<H extends Handler>(load: () => Promise<H>) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const { Context } = await import('./cli/context.ts');
    const ctx = new Context(command.optsWithGlobals<GlobalFlags>());
    const handler = await load();
    await handler(ctx, ...(args.slice(0, -1) as never[]));
  };
}

const core = () => import('./commands/core.ts');
const products = () => import('./commands/products.ts');
const sandbox = () => import('./commands/sandbox.ts');
const events = () => import('./commands/events.ts');

/** "paykit 1.2.3 (node v24.x)": the package's version, from src/ and dist/ alike. */
function versionLine(): string {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return `paykit ${version} (node ${process.version})`;
}

/** The name the CLI was invoked as (a bin linked as `pk` completes `pk`); `paykit` when run as a file. */
export function invokedName(argv1: string | undefined = process.argv[1]): string {
  const name = path.basename(argv1 ?? '').replace(/\.(c|m)?(j|t)s$/, '');
  return /^[\w][\w.-]*$/.test(name) && name !== 'main' ? name : 'paykit';
}

export function buildProgram(): Command {
  const program = new Command('paykit')
    .version(versionLine(), '-V, --version', 'print the version (and Node’s)')
    .description('Operate the payments platform: every product, the sandbox, and the gateway’s stored events.')
    .option('-p, --profile <name>', 'profile to use (PAYKIT_PROFILE; default sandbox)')
    .option(
      '--config <file>',
      'config file (PAYKIT_CONFIG; default ./paykit.config.json, then ~/.config/paykit/config.json)',
    )
    .option('--json', 'print the result as JSON')
    .option('-y, --yes', 'confirm production operations that move money or change an account')
    .option('--dry-run', 'show the request that would change something instead of sending it')
    // One line for every usage error commander finds, with where to look.
    .configureOutput({ outputError: (text, write) => write(`${text.trimEnd()} (run with --help for usage)\n`) })
    .configureHelp({ sortSubcommands: false })
    // Before the subcommands are added, so they inherit it: every usage error reaches main.ts.
    .exitOverride();
  program.addHelpText(
    'after',
    '\nExit codes: 0 ok, 1 the operation failed, 2 wrong usage. Secrets come only from the environment or files named in the profile.',
  );

  program
    .command('auth')
    .description('core bearer tokens')
    .command('token')
    .description('create (or reuse) a token; shows its expiry in Mexico City and local time')
    .action(act(async () => (await core()).authToken));
  program
    .command('credentials')
    .description('core credentials')
    .command('list')
    .description('the credentials of the API key’s environment (keys masked)')
    .action(act(async () => (await core()).credentialsList));

  const webhooks = program.command('webhooks').description('core webhook configurations');
  webhooks
    .command('register')
    .description('register a receiver; the token is generated and stored in a file (mode 600)')
    .option('--type <type>', 'MONEY_IN, STATUS_UPDATE, CEP, REFUND or REPORT')
    .option('--url <url>', 'the receiver’s URL')
    .option('--all-types <gatewayUrl>', 'register all five types at the gateway’s routes under this base URL')
    .option('--auth-type <type>', 'AUTH (default), NO_AUTH or OAUTH')
    .option('--token-dir <dir>', 'where tokens are written (PAYKIT_TOKEN_DIR; default ~/.config/paykit/webhook-tokens)')
    .action(act(async () => (await core()).webhooksRegister));
  webhooks
    .command('list')
    .description('every configuration')
    .action(act(async () => (await core()).webhooksList));
  webhooks
    .command('get <id>')
    .description('one configuration')
    .action(act(async () => (await core()).webhooksGet));
  webhooks
    .command('update <id>')
    .description('change the URL or status')
    .option('--url <url>')
    .option('--status <status>', 'ACTIVE or INACTIVE')
    .action(act(async () => (await core()).webhooksUpdate));
  webhooks
    .command('delete <id>')
    .description('delete a configuration')
    .action(act(async () => (await core()).webhooksDelete));
  webhooks
    .command('rotate-token <id>')
    .description('replace the token with a new one, stored in a file')
    .option('--token-dir <dir>')
    .action(act(async () => (await core()).webhooksRotateToken));

  const transfer = (command: Command, amount: boolean) => {
    command
      .requiredOption('--source <instrumentId>', 'source instrument')
      .requiredOption('--destination <instrumentId>', 'destination instrument');
    if (amount) command.option('--amount <pesos>', 'a decimal string with two decimals, e.g. 1500.00 (never a float)');
    return command
      .option('--description <text>', 'payment concept')
      .option('--reference <digits>', 'numeric external reference, at most 7 digits')
      .option(
        '--no-record',
        'move the money without recording it in the ledger (its status updates stay orphans); by default nothing is sent when the ledger cannot be opened',
      );
  };
  transfer(
    program
      .command('penny-validate')
      .description('send 0.01 MXN to check who owns an account (Idempotency-Key derived)'),
    false,
  ).action(act(async () => (await core()).pennyValidate));
  transfer(
    program
      .command('money-out')
      .description('send money: to a platform account internally (INT_DEBIT), anywhere else by SPEI'),
    true,
  ).action(act(async () => (await core()).moneyOut));
  transfer(
    program.command('internal-transaction').description('deprecated since 2026-05-07: use money-out (same body)'),
    true,
  ).action(act(async () => (await core()).internalTransaction));

  const accounts = program.command('accounts').description('private account lifecycle');
  for (const action of ['block', 'activate', 'cancel'] as const) {
    accounts
      .command(`${action} <accountId>`)
      .description(
        action === 'cancel'
          ? 'cancel for good'
          : action === 'block'
            ? 'block temporarily'
            : 'activate a blocked account',
      )
      .action(
        act(async () => async (ctx: Context, accountId: string) => (await core()).account(ctx, action, accountId)),
      );
  }

  const dd = program.command('direct-debit').alias('dd').description('direct debit');
  dd.command('customers')
    .description('customers')
    .command('create')
    .requiredOption('--name <name>')
    .requiredOption('--document-type <type>', 'e.g. mx_rfc')
    .requiredOption('--document-number <number>')
    .option('--email <email>')
    .option('--phone <phone>')
    .description('create a customer')
    .action(act(async () => (await products()).customersCreate));
  const instruments = dd.command('instruments').description('instruments');
  instruments
    .command('list')
    .description('every instrument, following the cursor')
    .option('--limit <n>', 'page size')
    .action(act(async () => (await products()).instrumentsList));
  instruments
    .command('export')
    .description('every instrument to a file, following the cursor')
    .addOption(new Option('--format <format>').choices(['csv', 'jsonl']).default('jsonl'))
    .requiredOption('--out <file>')
    .option('--limit <n>', 'page size (default 500)')
    .action(act(async () => (await products()).instrumentsExport));

  const cashWebhook = program.command('cash').description('cash').command('webhook').description('the cash webhook');
  cashWebhook
    .command('create')
    .requiredOption('--url <url>')
    .option('--token-dir <dir>')
    .description('create it; its secret_token is stored in a file')
    .action(act(async () => (await products()).cashWebhookCreate));
  cashWebhook
    .command('get')
    .description('the active webhook')
    .action(act(async () => (await products()).cashWebhookGet));
  cashWebhook
    .command('update <id>')
    .requiredOption('--url <url>')
    .description('change its URL (re-runs the activation test)')
    .action(act(async () => (await products()).cashWebhookUpdate));

  program
    .command('remittance')
    .description('remittance')
    .command('receive')
    .requiredOption('--file <file>', 'a JSON receive request')
    .description('receive a remittance')
    .action(act(async () => (await products()).remittanceReceive));
  for (const product of ['billpay', 'gift-cards', 'lottery'] as const) {
    program
      .command(product)
      .description(product)
      .command('account')
      .description('the account behind the bearer token')
      .action(act(async () => async (ctx: Context) => (await products()).bearerAccount(ctx, product)));
  }

  program
    .command('trigger <event> [id]')
    .description(
      'make the sandbox emit an event: money-in, cep, spei-settle, spei-reject, spei-reverse, cash-paid, cash-expired, cash-reversed, report',
    )
    .option('--clabe <clabe>', 'money-in: the beneficiary CLABE')
    .option('--amount <pesos>', 'money-in: e.g. 1500.00')
    .option('--payer-account <clabe>')
    .option('--concept <text>')
    .option('--reference <digits>')
    .option('--status <status>', 'cep: DELAYED|COMPLETED|FAILED; spei-reject: REJECTED|CANCELLED|DECLINED')
    .option('--reason <code>', 'spei-reject: the reason')
    .option('--file-type <type>', 'report: TRANSACTIONS or ACCOUNT_STATEMENT')
    .option('--period <period>', 'report: DAILY or MONTHLY')
    .option('--client-id <uuid>', 'report: the client (default the seed’s first)')
    .action(act(async () => (await sandbox()).trigger));
  const sb = program.command('sandbox').description('the sandbox itself');
  sb.command('clock')
    .description('the sandbox clock')
    .command('advance <seconds>')
    .description('move the clock forward; due steps run')
    .action(act(async () => (await sandbox()).clockAdvance));
  sb.command('faults')
    .description('show or set API and delivery faults')
    .option('--latency-ms <ms>')
    .option('--error-rate <share>', '0 to 1')
    .option('--duplicates <n>', 'copies of each delivery: N or MIN-MAX (1–5)')
    .option('--reorder', 'shuffle deliveries')
    .option('--no-reorder')
    .option('--reset', 'no faults')
    .action(act(async () => (await sandbox()).faults));
  sb.command('cash-operation')
    .description('create a pending cash operation (then trigger cash-paid <operation_id>)')
    .requiredOption('--amount <pesos>', 'whole pesos')
    .option('--type <type>', 'cash_in (default) or cash_out')
    .option('--user <id>', 'external user id')
    .option('--open', 'open reference (sends no events)')
    .action(act(async () => (await sandbox()).cashOperation));

  const ev = program.command('events').description('events stored by the webhook gateway (its admin API)');
  ev.command('list')
    .option('--type <type>')
    .option('--source <source>', 'core, cash or direct_debit')
    .option('--outcome <outcome>', 'accepted, rejected, flagged or stored')
    .option('--before <seq>', 'only events older than this one')
    .option('--limit <n>', 'at most this many, paging the gateway as needed (default 50)')
    .option('--all', 'every matching event')
    .description('newest first; says when there are more')
    .action(act(async () => (await events()).eventsList));
  ev.command('show <seq>')
    .description('one event with its replays')
    .action(act(async () => (await events()).eventsShow));
  ev.command('replay <seq>')
    .description(
      're-run validation and the decision with today’s rules; with --to, redeliver the stored bytes to a URL',
    )
    .option(
      '--to <url>',
      'POST the exact stored bytes here, with the delivery’s headers recomputed: core Authorization: Bearer (PAYKIT_CORE_WEBHOOK_TOKEN, else the token file `webhooks register` wrote), cash X-Webhook-Timestamp and X-Webhook-Signature (PAYKIT_CASH_WEBHOOK_SECRET, else the secret file)',
    )
    .action(act(async () => (await events()).eventsReplay));
  program
    .command('listen')
    .description('print deliveries as they reach the gateway, one line each (NDJSON with --json); Ctrl-C stops')
    .option(
      '--forward-to <url>',
      'also redeliver each new event to this URL (headers recomputed as in `events replay --to`)',
    )
    .option('--interval <ms>', 'how often to ask the gateway (default 500)')
    .option('--source <source>', 'core, cash or direct_debit')
    .option('--type <type>', 'an event type, e.g. MONEY_IN')
    .action(act(async () => (await import('./commands/listen.ts')).listen));

  program
    .command('drift')
    .description(
      'differences between stored deliveries and the specs, one record per source, event type, field and kind (the store)',
    )
    .option('--source <source>', 'core, cash or direct_debit')
    .option('--type <type>', 'an event type, e.g. MONEY_IN')
    .option('--limit <n>', 'at most this many records (default 200)')
    .option(
      '--overlay [file]',
      'write an OpenAPI Overlay 1.0 proposing the spec change, one action per record (needs --source; stdout without a file)',
    )
    .option('--spec <file>', 'the spec the overlay targets (default specs/<source>.yaml)')
    .action(act(async () => (await import('./commands/drift.ts')).drift));

  const ledger = () => import('./commands/ledger.ts');
  const reconcile = program
    .command('reconcile')
    .description('the reconciliation ledger (the store the gateway and worker share)');
  reconcile
    .command('run')
    .option('--once', 'apply every waiting event, then stop')
    .description('apply waiting events and print the summary')
    .action(act(async () => (await ledger()).reconcileRun));
  reconcile
    .command('summary')
    .option('--from <day>', 'YYYY-MM-DD')
    .option('--to <day>', 'YYYY-MM-DD')
    .description('counts and amounts per state, by day and product, with the match rate')
    .action(act(async () => (await ledger()).reconcileSummary));
  const booksCommands = () => import('./commands/books.ts');
  const booksCommand = program
    .command('books')
    .description(
      'money in and out from the journal, and whether the books hold (debits equal credits, every item as its facts say)',
    )
    .option('--from <day>', 'YYYY-MM-DD (Mexico City value day)')
    .option('--to <day>', 'YYYY-MM-DD')
    .action(act(async () => (await booksCommands()).books));
  booksCommand
    .command('item <item>')
    .description(
      'every entry of one item (tx:<transaction id>, dd:<charge id>, rcv:<receivable id>, int:<intent id>) and the fact it stands on',
    )
    .action(act(async () => (await booksCommands()).booksItem));
  const held = program
    .command('held')
    .description('credits the gateway held (202) or flagged: not money in until released');
  held
    .command('list')
    .description('every credit still held, the oldest first')
    .action(act(async () => (await booksCommands()).heldList));
  held
    .command('release <credit>')
    .description(
      'ask the gateway to re-decide a held credit (by seq or transaction id) and, if it accepts it now, release it',
    )
    .option('--by <name>', 'who releases it (default: this user)')
    .option('--note <text>', 'why')
    .action(act(async () => (await booksCommands()).heldRelease));
  const storeCommands = () => import('./commands/store.ts');
  const storeCommand = program
    .command('store')
    .description('the event store: its month partitions, and retention (archive months to files, restore them)');
  storeCommand
    .command('partitions')
    .description('create this month’s and the next three months’ partitions where missing, and list every partition')
    .action(act(async () => (await storeCommands()).storePartitions));
  storeCommand
    .command('archive')
    .description(
      'write every month that ended by --before to <dir>/<partition>.ndjson.gz with a manifest and its sha256, then drop it; a month the ledger still reads stays, with the reason',
    )
    .option('--before <day>', 'YYYY-MM-DD (UTC): archive the months that ended by then')
    .option('--dir <folder>', 'where the files go (default ./archive)')
    .option('--dedupe-window <days>', 'days a redelivery must still be recognised (default 30): later months stay')
    .action(act(async () => (await storeCommands()).storeArchive));
  storeCommand
    .command('archives')
    .description('every archive written: its month, events, seqs, file, and whether it was restored')
    .action(act(async () => (await storeCommands()).storeArchives));
  storeCommand
    .command('restore <file>')
    .description(
      'bring an archive (its .ndjson.gz or .manifest.json) back into the database, after checking its sha256',
    )
    .action(act(async () => (await storeCommands()).storeRestore));
  const knownAccounts = () => import('./commands/known-accounts.ts');
  const known = program
    .command('known-accounts')
    .description('the accounts of ours the gateway knows: a credit to any other is held');
  known
    .command('list')
    .description('every known account, with its status, owner and credit limit')
    .action(act(async () => (await knownAccounts()).knownAccountsList));
  known
    .command('add <clabe>')
    .description('add an account (ACTIVE), or set the owner and limit of one already known')
    .option('--owner <id>', 'the owner id the platform gives the account')
    .option('--credit-limit <pesos>', 'the largest credit accepted to it, e.g. 50000.00')
    .action(act(async () => (await knownAccounts()).knownAccountsAdd));
  for (const [action, status, what] of [
    ['block', 'BLOCKED', 'credits to it are refused (422: the platform returns them to their payer)'],
    ['activate', 'ACTIVE', 'credits to it are accepted again'],
    ['cancel', 'CANCELLED', 'the account is closed: credits to it are refused (422)'],
  ] as const)
    known
      .command(`${action} <clabe>`)
      .description(what)
      .action(act(async () => (await knownAccounts()).knownAccountsSetStatus(status)));
  const operatorsCommands = () => import('./commands/operators.ts');
  const operators = program
    .command('operators')
    .description('who may log in to the finance console: viewers read and export, operators also act');
  operators
    .command('list')
    .description('every operator, with role and status')
    .action(act(async () => (await operatorsCommands()).operatorsList));
  operators
    .command('add <name>')
    .description('add an operator; the password is typed twice without echo, or piped in with --password-stdin')
    .requiredOption('--role <role>', 'viewer (reads and exports) or operator (also retries and releases)')
    .option('--password-stdin', 'read the password from standard input')
    .action(act(async () => (await operatorsCommands()).operatorsAdd));
  operators
    .command('reset <name>')
    .description('set a new password (and enable the operator again); their logins end')
    .option('--password-stdin', 'read the password from standard input')
    .action(act(async () => (await operatorsCommands()).operatorsReset));
  operators
    .command('disable <name>')
    .description('no more logins; their logins end at once')
    .action(act(async () => (await operatorsCommands()).operatorsDisable));
  operators
    .command('role <name> <role>')
    .description('make an operator a viewer or an operator; their logins take it at their next request')
    .action(act(async () => (await operatorsCommands()).operatorsRole));
  const receivables = program.command('receivables').description('credits we expect to receive');
  receivables
    .command('add')
    .requiredOption('--id <id>', 'your id (an invoice number)')
    .requiredOption('--clabe <clabe>', 'the beneficiary CLABE')
    .requiredOption('--amount <pesos>', 'e.g. 1500.00')
    .option('--reference <digits>', 'numeric reference the payer sends')
    .option('--concept <text>')
    .requiredOption('--due <day>', 'YYYY-MM-DD')
    .description('expect a credit')
    .action(act(async () => (await ledger()).receivablesAdd));
  receivables
    .command('import <file>')
    .description(`a CSV: ${'id,beneficiary_account,amount,reference,concept,due_date'}; all lines checked first`)
    .action(act(async () => (await ledger()).receivablesImport));
  const transfers = () => import('./commands/transfers.ts');
  const transferCommands = program.command('transfers').description('transfers sent without a recorded answer');
  transferCommands
    .command('unresolved')
    .description('intents without a transaction: amount, age, who sent them')
    .action(act(async () => (await transfers()).transfersUnresolved));
  transferCommands
    .command('resolve <intent>')
    .description('replay an intent with its Idempotency-Key (within 24 h) and attach the answer')
    .action(act(async () => (await transfers()).transfersResolve));
  program
    .command('reports')
    .description('the platform’s report files')
    .command('import <file>')
    .description('import a report CSV (named as its REPORT event) and match it three ways')
    .action(act(async () => (await ledger()).reportsImport));

  program
    .command('migrate')
    .description('rewrite code for the platform’s dated API changes')
    .command('money-out [paths...]')
    .description(
      'rewrite internalTransaction calls of the core client to moneyOut, and flat transfer bodies to the nested one: a diff unless --write; exit 1 when some calls need a person',
    )
    .option('--write', 'apply the changes')
    .action(act(async () => (await import('./commands/migrate.ts')).migrateMoneyOut));

  program
    .command('completion <shell>')
    .description(
      'print a completion script for this binary, by the name it was invoked as: bash or zsh (e.g. source <(paykit completion bash), with paykit on the PATH)',
    )
    .action(async (shell: string) => {
      const { completionScript } = await import('./cli/completion.ts');
      process.stdout.write(completionScript(shell, program, invokedName()));
    });
  return program;
}

/**
 * argv without its help flags when it names a command that does not exist: commander prints the
 * help of the deepest command it knows before it looks at the next word, so `paykit store archive
 * --help` would print the root's help and exit 0. Without the flag, commander names the unknown
 * command and main.ts exits 2, as it does without --help.
 */
export function helpOnlyForKnownCommands(program: Command, argv: readonly string[]): string[] {
  const args = argv.slice(2);
  const isHelp = (arg: string) => arg === '-h' || arg === '--help';
  if (!args.some(isHelp)) return [...argv];
  const path: Command[] = [program];
  let current = program;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      // An option given its value in the next word (`--profile staging`) must not read as a command.
      const option = path.flatMap((c) => c.options).find((o) => o.long === arg || o.short === arg);
      if (option && (option.required || option.optional) && !arg.includes('=')) i++;
      continue;
    }
    if (current.commands.length === 0) break;
    const next = current.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (next === undefined) {
      if (arg === 'help') break;
      return [...argv.slice(0, 2), ...args.filter((a) => !isHelp(a))];
    }
    current = next;
    path.push(next);
  }
  return [...argv];
}
