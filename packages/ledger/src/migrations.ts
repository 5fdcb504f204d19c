// The ledger's migration set for @paykit/store's migrate(): its tables' migrations
// (packages/ledger/migrations) and the current definition of each of its SQL functions
// (packages/ledger/sql/functions). Every process that reads or writes the ledger's tables, or
// stores events (the batch append records redelivery conflicts in ledger_conflicts), passes it:
//   await migrate(db, [ledgerMigrations]);
// Its own entry point (@paykit/ledger/migrations), so the gateway loads nothing else of the ledger.
import { fileURLToPath } from 'node:url';
import { migrationSet, type MigrationSet } from '@paykit/store';

/** The ledger's migrations and SQL functions (the package root is one level above src/ and dist/). */
export const ledgerMigrations: MigrationSet = migrationSet(fileURLToPath(new URL('..', import.meta.url)));
