// MONEY_IN decisions. A 422 makes the platform refund an external SPEI credit to its payer, so a
// refusal is only ever a business decision taken by one of these rules, before answering, and
// never the result of a body that differs from the spec. A difference of format (a date form, a
// check digit, an id's shape) is drift: it is recorded with the event and changes no decision.
// What cannot be judged at all — no beneficiary account, a sub_category the gateway does not know,
// an amount that breaks the amount rule (@paykit/contracts' readAmount, which the ledger's SQL
// shares) — is stored and answered 202 (persisted, checks pending) for a person to decide; it is
// never applied and never refunded.
//
// A rule is configuration plus a small typed interface: add one by implementing MoneyInRule and
// passing it in `rules` to startGateway.
import { readAmount } from '@paykit/contracts';
import type { Account, Outcome } from '@paykit/store';
import { isValidClabe, toCentavos } from '@paykit/domain';
import type { PolicyConfig } from './config.ts';

/** What the rules read from a MONEY_IN body, read defensively (the body may have drifted). */
export interface MoneyInFacts {
  /** SPEI_CREDIT or INT_CREDIT as sent; undefined when absent (the documented guide example has none). */
  subCategory: string | undefined;
  beneficiaryAccount: string | undefined;
  payerAccount: string | undefined;
  payerRfc: string | undefined;
  /** The amount as sent when it is a string (for reasons), else undefined. */
  amount: string | undefined;
  /** Set when the amount keeps the amount rule (@paykit/contracts' readAmount), so the ledger applies it. */
  amountCentavos: bigint | undefined;
  /** Why the amount cannot be applied; undefined when amountCentavos is set. */
  amountProblem: string | undefined;
}

/** Refuses the credit: 422 with refundReason for SPEI_CREDIT (the platform refunds it), stored flagged for INT_CREDIT. */
export interface RefuseVerdict {
  action?: 'refuse';
  /** The rule that refused, for metrics and the stored reason. */
  rule: string;
  /** Sent to the platform as `refundReason` (SPEI_CREDIT) — short, for the payer's bank. */
  refundReason: string;
  /** Kept with the event: why, in full. */
  reason: string;
}

/** Holds the credit: stored and answered 202, neither applied nor refunded, for a person to decide. */
export interface HoldVerdict {
  action: 'hold';
  rule: string;
  reason: string;
}

export type RuleVerdict = RefuseVerdict | HoldVerdict;

export interface MoneyInRule {
  name: string;
  /** A verdict refuses or holds the credit; undefined lets it through to the next rule. */
  check(facts: MoneyInFacts, account: Account | undefined): RuleVerdict | undefined;
}

export interface Decision {
  outcome: Outcome;
  answerStatus: number;
  reason: string | null;
  refundReason: string | null;
  /** The rule that refused or held, 'review' when the credit could not be judged, null when accepted. */
  rule: string | null;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export function moneyInFacts(body: unknown): MoneyInFacts {
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const amount = readAmount(b.amount);
  return {
    // Letter case is a format: "int_credit" is judged as INT_CREDIT.
    subCategory: text(b.sub_category)?.toUpperCase(),
    beneficiaryAccount: text(b.beneficiary_account),
    payerAccount: text(b.payer_account),
    payerRfc: text(b.payer_rfc)?.toUpperCase(),
    amount: typeof b.amount === 'string' ? b.amount : undefined,
    amountCentavos: amount.ok ? amount.centavos : undefined,
    amountProblem: amount.ok ? undefined : amount.problem,
  };
}

/**
 * The beneficiary account as a reason names it: a CLABE as it is; anything else (a debit card
 * number, a drifted value) only by its length and last four characters, so no card number is
 * ever written into a reason.
 */
function accountLabel(account: string | undefined): string {
  if (account === undefined) return '(none)';
  return isValidClabe(account)
    ? account
    : `of ${account.length} characters ending in ${JSON.stringify(account.slice(-4))}`;
}

export function defaultRules(policy: PolicyConfig): MoneyInRule[] {
  const denied = new Set(policy.denyPayers);
  return [
    {
      name: 'unknown-account',
      check: (facts, account) => {
        if (account !== undefined || policy.unknownAccount === 'accept') return undefined;
        const unknown = `beneficiary account ${accountLabel(facts.beneficiaryAccount)} is not among the accounts the store knows`;
        // An account the store does not know yet is usually one it has not been told about: the
        // credit is kept until it is, unless the operator chose to refuse such credits.
        if (policy.unknownAccount === 'hold')
          return {
            action: 'hold',
            rule: 'unknown-account',
            reason: `${unknown}: held for a person to decide (GATEWAY_UNKNOWN_ACCOUNT=hold; a replay shows the decision on the account as the store knows it now)`,
          };
        // A refusal rests on the account being unknown, never on how it is written: one that fails
        // the CLABE check digit may be a form the gateway misreads, so it is held, not refunded.
        if (facts.beneficiaryAccount === undefined || !isValidClabe(facts.beneficiaryAccount)) {
          return {
            action: 'hold',
            rule: 'unknown-account',
            reason: `${unknown} and is not a valid CLABE: held rather than refused (a format is never a reason to refund)`,
          };
        }
        return { rule: 'unknown-account', refundReason: 'Beneficiary account unknown', reason: unknown };
      },
    },
    {
      name: 'account-status',
      check: (facts, account) => {
        if (account?.status === 'BLOCKED')
          return {
            rule: 'account-blocked',
            refundReason: 'Beneficiary account blocked',
            reason: `beneficiary account ${accountLabel(facts.beneficiaryAccount)} is BLOCKED`,
          };
        if (account?.status === 'CANCELLED')
          return {
            rule: 'account-cancelled',
            refundReason: 'Beneficiary account cancelled',
            reason: `beneficiary account ${accountLabel(facts.beneficiaryAccount)} is CANCELLED`,
          };
        return undefined;
      },
    },
    {
      name: 'denied-payer',
      check: (facts) => {
        const hit = [facts.payerAccount, facts.payerRfc].find((id) => id !== undefined && denied.has(id.toUpperCase()));
        return hit
          ? {
              rule: 'denied-payer',
              refundReason: 'Payer not accepted',
              reason: `payer ${hit} is on the deny list (GATEWAY_DENY_PAYERS)`,
            }
          : undefined;
      },
    },
    {
      name: 'credit-limit',
      check: (facts, account) => {
        const own = account?.creditLimit ?? null;
        const limit = own !== null ? toCentavos(own) : policy.defaultCreditLimitCentavos;
        if (limit === null || facts.amountCentavos === undefined || facts.amountCentavos <= limit) return undefined;
        const source = own !== null ? "the account's credit limit" : 'GATEWAY_CREDIT_LIMIT';
        return {
          rule: 'credit-limit',
          refundReason: 'Amount over the account limit',
          reason: `amount ${facts.amount} is over ${source}`,
        };
      },
    },
  ];
}

/**
 * What is looked up as a beneficiary account: printable ASCII without spaces, at most 64
 * characters (a CLABE is 18 digits). Anything else is no account number anywhere, and some of it
 * (a NUL) no PostgreSQL text column can even hold.
 */
const ACCOUNT_NUMBER = /^[\x21-\x7e]{1,64}$/;

/** Why a credit cannot be judged (answered 202 and kept for review), or undefined. */
function needsReview(facts: MoneyInFacts): string | undefined {
  if (facts.subCategory !== undefined && facts.subCategory !== 'SPEI_CREDIT' && facts.subCategory !== 'INT_CREDIT') {
    return `sub_category ${JSON.stringify(facts.subCategory.slice(0, 32))} is neither SPEI_CREDIT nor INT_CREDIT, so what a 422 would do is unknown`;
  }
  if (facts.beneficiaryAccount === undefined)
    return 'beneficiary_account is missing: whose credit this is cannot be known';
  if (!ACCOUNT_NUMBER.test(facts.beneficiaryAccount)) {
    const account = facts.beneficiaryAccount;
    return account.length > 64
      ? `beneficiary_account is ${account.length} characters long, which no account number is`
      : `beneficiary_account (${account.length} characters) holds characters no account number has (control, white space or non-ASCII)`;
  }
  return facts.amountProblem;
}

/** The beneficiary account a decision reads: none when the credit cannot be judged (it is held for review whatever the account). */
export function accountToRead(facts: MoneyInFacts): string | undefined {
  return needsReview(facts) === undefined ? facts.beneficiaryAccount : undefined;
}

const held = (reason: string, rule: string): Decision => ({
  outcome: 'stored',
  answerStatus: 202,
  reason,
  refundReason: null,
  rule,
});

/**
 * The decision for one MONEY_IN. SPEI_CREDIT: 201 accepted, or 422 with refundReason. INT_CREDIT:
 * 200 either way (a 422 would refund nothing): a refusal is stored `flagged` with its reason.
 * Without sub_category (the documented guide example has none) an accepted credit is answered 201
 * (200 and 201 both accept), and a refusal is held (202): a 422 would refund an external credit but
 * not an internal one, and the ledger must not record a refund that never happened.
 * A hold, by a rule or because the credit cannot be judged, is stored and answered 202.
 */
export function decideMoneyIn(
  facts: MoneyInFacts,
  account: Account | undefined,
  rules: readonly MoneyInRule[],
): Decision {
  const review = needsReview(facts);
  if (review) return held(`held for review: ${review}`, 'review');
  const internal = facts.subCategory === 'INT_CREDIT';
  for (const rule of rules) {
    const verdict = rule.check(facts, account);
    if (!verdict) continue;
    if (verdict.action === 'hold') return held(`held for review: ${verdict.reason}`, verdict.rule);
    if (internal)
      return {
        outcome: 'flagged',
        answerStatus: 200,
        reason: `${verdict.reason} (INT_CREDIT: stored flagged, nothing is refunded)`,
        refundReason: null,
        rule: verdict.rule,
      };
    if (facts.subCategory === undefined) {
      return held(
        `held for review: ${verdict.reason}; without sub_category a 422 might refund it (SPEI_CREDIT) or nothing (INT_CREDIT), so a person decides`,
        verdict.rule,
      );
    }
    return {
      outcome: 'rejected',
      answerStatus: 422,
      reason: verdict.reason,
      refundReason: verdict.refundReason,
      rule: verdict.rule,
    };
  }
  return { outcome: 'accepted', answerStatus: internal ? 200 : 201, reason: null, refundReason: null, rule: null };
}
