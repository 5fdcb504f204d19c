// The sandbox's own choices where the platform reference is silent, all configurable through
// startSandbox({ settings }). The README lists each one with its reason.
import type { DeliverySettings } from './deliveries.ts';

export interface SandboxSettings {
  delivery: DeliverySettings;
  /** Allow webhook URLs on http://localhost / 127.0.0.1 (the reference requires public HTTPS). */
  allowLocalWebhookUrls: boolean;
  /** Largest request body accepted, in bytes; larger ones get the product's 400/422/401 answer. */
  bodyLimitBytes: number;
  /** Deepest nesting of arrays and objects a JSON body may have; deeper ones get the product's bad-request answer. */
  bodyMaxDepth: number;
  core: {
    /** Token lifetime: the reference says 24 hours. */
    tokenTtlSeconds: number;
    /** CEP lookup: INITIALIZED → PENDING after this many seconds… */
    cepPendingAfterSeconds: number;
    /** …then, unless a control call decides first, the final outcome this many seconds later. */
    cepOutcomeAfterSeconds: number;
    cepDefaultOutcome: 'COMPLETED' | 'FAILED';
    /** Outbound SPEI: IN_PROGRESS → LIQUIDATED after this many seconds unless a control call decides first; null: only by control call. */
    speiSettleAfterSeconds: number | null;
    /** Internal transfers (INT_DEBIT) settle this many seconds after creation ("near-real-time"). */
    internalSettleAfterSeconds: number;
    /** "Invalid description" (not defined by the reference): blank or longer than this (a SPEI payment concept's length). */
    descriptionMaxLength: number;
    /** Where a COMPLETED CEP lookup's document "is": `<cepUrlBase><validationId>.pdf` (a reserved domain: nothing is fetched). */
    cepUrlBase: string;
    /** How long a report's download_url answers (the platform's lifetime is not shown), in seconds of the sandbox clock. */
    reportUrlTtlSeconds: number;
    /**
     * The STATUS_UPDATE body delivered: 'current' (id, status, tracking key, reason…) or 'older',
     * the form the documentation still shows: only `{tracking_key, status, update_at}`.
     */
    statusUpdateForm: 'current' | 'older';
    /** MONEY_IN transaction_date: 'compact' `20250402` (every full published example) or 'date-time' `2025-04-02 10:15:00` (the field reference). */
    moneyInDateForm: 'compact' | 'date-time';
  };
  remittance: {
    /** The holder name of the private account a remittance opens (the request carries no name). */
    holderName: string;
  };
  directDebit: {
    /** The reference does not show the maximum of `limit`. */
    maxLimit: number;
  };
  cash: {
    /** The reference does not show the accepted clock skew of X-Timestamp. */
    clockSkewSeconds: number;
  };
}

export const DEFAULT_SETTINGS: SandboxSettings = {
  delivery: { timeoutMs: 5000, redeliverySeconds: [10, 60, 300, 1800, 7200] },
  allowLocalWebhookUrls: true,
  bodyLimitBytes: 1024 * 1024,
  bodyMaxDepth: 512,
  core: {
    tokenTtlSeconds: 24 * 3600,
    cepPendingAfterSeconds: 2,
    cepOutcomeAfterSeconds: 30,
    cepDefaultOutcome: 'COMPLETED',
    speiSettleAfterSeconds: 10,
    internalSettleAfterSeconds: 0,
    descriptionMaxLength: 40,
    cepUrlBase: 'https://sandbox.invalid/cep/',
    reportUrlTtlSeconds: 900,
    statusUpdateForm: 'current',
    moneyInDateForm: 'compact',
  },
  remittance: { holderName: 'REMITTANCE BENEFICIARY' },
  directDebit: { maxLimit: 1000 },
  cash: { clockSkewSeconds: 300 },
};

export type SettingsInput = {
  [K in keyof SandboxSettings]?: SandboxSettings[K] extends object ? Partial<SandboxSettings[K]> : SandboxSettings[K];
};

export function resolveSettings(input: SettingsInput = {}): SandboxSettings {
  return {
    ...DEFAULT_SETTINGS,
    ...input,
    delivery: { ...DEFAULT_SETTINGS.delivery, ...input.delivery },
    core: { ...DEFAULT_SETTINGS.core, ...input.core },
    directDebit: { ...DEFAULT_SETTINGS.directDebit, ...input.directDebit },
    cash: { ...DEFAULT_SETTINGS.cash, ...input.cash },
    remittance: { ...DEFAULT_SETTINGS.remittance, ...input.remittance },
  } as SandboxSettings;
}
