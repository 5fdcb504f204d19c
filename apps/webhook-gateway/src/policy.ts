// MONEY_IN decisions. A 422 makes the platform refund an external SPEI credit to its payer, so a
// refusal is only ever a business decision taken by one of these rules, before answering, and
// never the result of a body that differs from the spec: what cannot be judged is stored and
// answered 202 (persisted, checks pending) for a person to look at.
//
// A rule is configuration plus a small typed interface: add one by implementing MoneyInRule and
// passing it in `rules` to createGateway.
import type { Account, Outcome } from '@paykit/store';
import { isValidClabe, toCentavos } from '@paykit/runtime';
import type { PolicyConfig } from './config.ts';

/** What the rules read from a MONEY_IN body, read defensively (the body may have drifted). */
export interface MoneyInFacts {
  subCategory: string | undefined;
  beneficiaryAccount: string | undefined;
  payerAccount: string | undefined;
  payerRfc: string | undefined;
  amount: string | undefined;
  /** undefined when `amount` is not a decimal with two decimals. */
  amountCentavos: bigint | undefined;
}

export interface RuleVerdict {
  /** The rule that refused, for metrics and the stored reason. */
  rule: string;
  /** Sent to the platform as `refundReason` (SPEI_CREDIT) — short, for the payer's bank. */
  refundReason: string;
  /** Kept with the event: why, in full. */
  reason: string;
}

export interface MoneyInRule {
  name: string;
  /** A verdict refuses the credit; undefined lets it through to the next rule. */
  check(facts: MoneyInFacts, account: Account | undefined): RuleVerdict | undefined;
}

export interface Decision {
  outcome: Outcome;
  answerStatus: number;
  reason: string | null;
  refundReason: string | null;
  /** The rule that refused, 'review' when the credit could not be judged, null when accepted. */
  rule: string | null;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export function moneyInFacts(body: unknown): MoneyInFacts {
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const amount = text(b.amount);
  let amountCentavos: bigint | undefined;
  if (amount !== undefined && /^\d+\.\d{2}$/.test(amount)) amountCentavos = toCentavos(amount);
  return {
    subCategory: text(b.sub_category),
    beneficiaryAccount: text(b.beneficiary_account),
    payerAccount: text(b.payer_account),
    payerRfc: text(b.payer_rfc)?.toUpperCase(),
    amount,
    amountCentavos,
  };
}

export function defaultRules(policy: PolicyConfig): MoneyInRule[] {
  const denied = new Set(policy.denyPayers);
  return [
    {
      name: 'unknown-account',
      check: (facts, account) =>
        account === undefined && policy.unknownAccount === 'reject'
          ? { rule: 'unknown-account', refundReason: 'Beneficiary account unknown', reason: `beneficiary account ${facts.beneficiaryAccount} is not among the accounts the store knows` }
          : undefined,
    },
    {
      name: 'account-status',
      check: (facts, account) => {
        if (account?.status === 'BLOCKED') return { rule: 'account-blocked', refundReason: 'Beneficiary account blocked', reason: `beneficiary account ${facts.beneficiaryAccount} is BLOCKED` };
        if (account?.status === 'CANCELLED') return { rule: 'account-cancelled', refundReason: 'Beneficiary account cancelled', reason: `beneficiary account ${facts.beneficiaryAccount} is CANCELLED` };
        return undefined;
      },
    },
    {
      name: 'denied-payer',
      check: (facts) => {
        const hit = [facts.payerAccount, facts.payerRfc].find((id) => id !== undefined && denied.has(id.toUpperCase()));
        return hit ? { rule: 'denied-payer', refundReason: 'Payer not accepted', reason: `payer ${hit} is on the deny list (GATEWAY_DENY_PAYERS)` } : undefined;
      },
    },
    {
      name: 'credit-limit',
      check: (facts, account) => {
        const own = account?.creditLimit ?? null;
        const limit = own !== null ? toCentavos(own) : policy.defaultCreditLimitCentavos;
        if (limit === null || facts.amountCentavos === undefined || facts.amountCentavos <= limit) return undefined;
        const source = own !== null ? "the account's credit limit" : 'GATEWAY_CREDIT_LIMIT';
        return { rule: 'credit-limit', refundReason: 'Amount over the account limit', reason: `amount ${facts.amount} is over ${source}` };
      },
    },
  ];
}

/** Why a credit cannot be judged (answered 202 and kept for review), or undefined. */
function needsReview(facts: MoneyInFacts): string | undefined {
  if (facts.subCategory !== 'SPEI_CREDIT' && facts.subCategory !== 'INT_CREDIT') return `sub_category ${facts.subCategory === undefined ? 'is missing' : `"${facts.subCategory.slice(0, 32)}" is not SPEI_CREDIT or INT_CREDIT`}`;
  if (facts.beneficiaryAccount === undefined || !isValidClabe(facts.beneficiaryAccount)) return 'beneficiary_account is missing or not a valid CLABE';
  if (facts.amountCentavos === undefined) return `amount ${facts.amount === undefined ? 'is missing' : 'is not a decimal with two decimals'}`;
  return undefined;
}

/** The beneficiary account a decision reads: none when the credit cannot be judged (it is held for review whatever the account). */
export function accountToRead(facts: MoneyInFacts): string | undefined {
  return needsReview(facts) === undefined ? facts.beneficiaryAccount : undefined;
}

/**
 * The decision for one MONEY_IN. SPEI_CREDIT: 201 accepted, or 422 with refundReason. INT_CREDIT:
 * 200 either way (a 422 would refund nothing): a refusal is stored `flagged` with its reason.
 */
export function decideMoneyIn(facts: MoneyInFacts, account: Account | undefined, rules: readonly MoneyInRule[]): Decision {
  const review = needsReview(facts);
  if (review) return { outcome: 'stored', answerStatus: 202, reason: `held for review: ${review}`, refundReason: null, rule: 'review' };
  const internal = facts.subCategory === 'INT_CREDIT';
  for (const rule of rules) {
    const verdict = rule.check(facts, account);
    if (!verdict) continue;
    return internal
      ? { outcome: 'flagged', answerStatus: 200, reason: `${verdict.reason} (INT_CREDIT: stored flagged, nothing is refunded)`, refundReason: null, rule: verdict.rule }
      : { outcome: 'rejected', answerStatus: 422, reason: verdict.reason, refundReason: verdict.refundReason, rule: verdict.rule };
  }
  return { outcome: 'accepted', answerStatus: internal ? 200 : 201, reason: null, refundReason: null, rule: null };
}
