// Receivables: credits a team expects (beneficiary CLABE, amount, optional numeric reference or
// concept, due date). Registering one matches its account again (../journal/post.ts, the rules in the
// README's "Matching") and posts it, under the account's key lock (../item-locks.ts): a worker
// applying a credit to that account at the same moment either sees this receivable or is seen by it.
import { readAmount } from '@paykit/contracts';
import { StoreInputError, type Database } from '@paykit/store';
import { postItems, rematchAccounts, type JournalItem } from '../journal/post.ts';
import { lockItems, retryRaces } from '../item-locks.ts';
import { decimal } from '../read/decimal.ts';
import { OPEN_FROM } from '../read/receivables.ts';

export interface NewReceivable {
  /** Your own id for it (an invoice number…); registering the same id again changes nothing. */
  id: string;
  beneficiaryAccount: string;
  /** An amount by the amount rule (@paykit/contracts' readAmount): a decimal string with two decimals, above zero. */
  amount: string;
  /** The numeric reference the payer is asked to send (1 to 7 digits). */
  reference?: string | null;
  concept?: string | null;
  /** YYYY-MM-DD */
  dueDate: string;
}

export interface Receivable extends Required<NewReceivable> {
  /** The first credit (MONEY_IN transaction id, by the platform's time) applied to it, or null. */
  creditId: string | null;
  /** Every credit applied to it, in the platform's time order. */
  creditIds: string[];
  /** Decimal strings: what the credits applied to it paid, and what is still owed. */
  paid: string;
  open: string;
}

export async function registerReceivable(db: Database, input: NewReceivable): Promise<Receivable> {
  if (typeof input.id !== 'string' || input.id.trim() === '' || input.id.length > 200)
    throw new StoreInputError('id must be a non-empty string of at most 200 characters');
  if (!/^\d{18}$/.test(String(input.beneficiaryAccount)))
    throw new StoreInputError('beneficiaryAccount must be an 18-digit CLABE');
  const amount = readAmount(input.amount);
  if (!amount.ok) throw new StoreInputError(amount.problem);
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
      const changed = await rematchAccounts(tx, [input.beneficiaryAccount]);
      await postItems(tx, [`rcv:${input.id}` satisfies JournalItem, ...changed], 'register');
      const { rows } = await tx.query<{
        id: string;
        beneficiary_account: string;
        amount: string;
        reference: string | null;
        concept: string | null;
        due_date: string;
        credit_ids: string[];
        paid: string;
        open: string;
      }>(
        `SELECT r.id, r.beneficiary_account, r.amount::text AS amount, r.reference, r.concept, r.due_date::text AS due_date,
                ARRAY(SELECT m.credit_id FROM ledger_credit_matches m JOIN ledger_credits c ON c.transaction_id = m.credit_id
                      WHERE m.receivable_id = r.id AND m.applied > 0 ORDER BY c.transaction_at, c.transaction_id) AS credit_ids,
                (r.amount - b.open)::text AS paid, b.open::text AS open
         FROM ${OPEN_FROM}
         WHERE r.id = $1`,
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
        creditId: row.credit_ids[0] ?? null,
        creditIds: row.credit_ids,
        paid: decimal(row.paid),
        open: decimal(row.open),
      };
    }),
  );
}
