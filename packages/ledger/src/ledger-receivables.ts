// Receivables: credits a team expects (beneficiary CLABE, amount, optional numeric reference or
// concept, due date). Registering one matches it at once against credits already received, under
// the account's key lock (ledger-keys.ts): a worker applying a credit to that account at the same
// moment either sees this receivable or is seen by it.
import { StoreInputError, type Database } from '@paykit/store';
import { lockItems, retryRaces } from './ledger-keys.ts';
import { matchReceivables } from './ledger-receivables-match.ts';

export interface NewReceivable {
  /** Your own id for it (an invoice number…); registering the same id again changes nothing. */
  id: string;
  beneficiaryAccount: string;
  /** Decimal string with two decimals. */
  amount: string;
  /** The numeric reference the payer is asked to send (1 to 7 digits). */
  reference?: string | null;
  concept?: string | null;
  /** YYYY-MM-DD */
  dueDate: string;
}

export interface Receivable extends Required<NewReceivable> {
  /** The credit (MONEY_IN transaction id) that paid it, once matched. */
  creditId: string | null;
}

export async function registerReceivable(db: Database, input: NewReceivable): Promise<Receivable> {
  if (typeof input.id !== 'string' || input.id.trim() === '' || input.id.length > 200)
    throw new StoreInputError('id must be a non-empty string of at most 200 characters');
  if (!/^\d{18}$/.test(String(input.beneficiaryAccount)))
    throw new StoreInputError('beneficiaryAccount must be an 18-digit CLABE');
  if (!/^\d{1,16}\.\d{2}$/.test(String(input.amount)) || /^0+\.00$/.test(input.amount))
    throw new StoreInputError('amount must be a positive decimal string with two decimals, such as "1500.00"');
  if (input.reference !== undefined && input.reference !== null && !/^\d{1,7}$/.test(input.reference))
    throw new StoreInputError('reference must be a numeric reference of 1 to 7 digits');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(String(input.dueDate)) || Number.isNaN(Date.parse(`${input.dueDate}T00:00:00Z`)))
    throw new StoreInputError('dueDate must be a date, YYYY-MM-DD');
  return retryRaces(() =>
    db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO ledger_receivables (id, beneficiary_account, amount, reference, concept, due_date) VALUES ($1, $2, $3::numeric, $4, $5, $6::date)
       ON CONFLICT (id) DO NOTHING`,
        [
          input.id,
          input.beneficiaryAccount,
          input.amount,
          input.reference ?? null,
          input.concept ?? null,
          input.dueDate,
        ],
      );
      await lockItems(tx, [`acct:${input.beneficiaryAccount}`]);
      await matchReceivables(tx, { receivableIds: [input.id] });
      const { rows } = await tx.query<{
        id: string;
        beneficiary_account: string;
        amount: string;
        reference: string | null;
        concept: string | null;
        due_date: string;
        credit_id: string | null;
      }>(
        'SELECT id, beneficiary_account, amount::text AS amount, reference, concept, due_date::text AS due_date, credit_id FROM ledger_receivables WHERE id = $1',
        [input.id],
      );
      const row = rows[0]!;
      return {
        id: row.id,
        beneficiaryAccount: row.beneficiary_account,
        amount: row.amount,
        reference: row.reference,
        concept: row.concept,
        dueDate: row.due_date,
        creditId: row.credit_id,
      };
    }),
  );
}
