// The core banking service: credentials and tokens, webhook configurations, private accounts,
// penny validation with its CEP lookup, money_out / internal_transaction with SPEI and internal
// routing, incoming credits, refunds and reports.
import type { CepOutcome, IncomingSpei, ReportRequest, Seed, SpeiRejection } from '@paykit/contracts';
import type { FastifyInstance } from 'fastify';
import type { SandboxProduct, SandboxRuntime } from '../../runtime.ts';
import { coreErrorBody, installCoreErrorHandler } from './errors.ts';
import { registerAccountRoutes } from './routes/accounts.ts';
import { registerAuthRoutes } from './routes/auth.ts';
import { registerReportRoutes } from './routes/reports.ts';
import { registerTransactionRoutes } from './routes/transactions.ts';
import { registerWebhookRoutes } from './routes/webhooks.ts';
import { CoreState } from './state.ts';
import { incomingSpei } from './transactions/money-in.ts';
import { cepOutcome } from './transactions/penny.ts';
import { rejectSpei, reverseSpei, settleSpei } from './transactions/transfer.ts';
import { emitReport } from './reports/emit.ts';
import { reportFile } from './reports/file.ts';
import { openPrivateAccount } from './accounts/open.ts';

export class CoreService implements SandboxProduct {
  readonly name = 'core';
  state = new CoreState();

  readonly runtime: SandboxRuntime;

  constructor(runtime: SandboxRuntime) {
    this.runtime = runtime;
  }

  register(app: FastifyInstance): void {
    installCoreErrorHandler(app);
    registerAuthRoutes(app, this);
    registerWebhookRoutes(app, this);
    registerAccountRoutes(app, this);
    registerTransactionRoutes(app, this);
    registerReportRoutes(app, this);
  }

  load(seed: Partial<Seed>): void {
    if (seed.core) this.state.load(seed.core, this.runtime.clock.nowMs());
  }

  reset(): void {
    this.state = new CoreState();
  }

  errorBody(status: number, message: string): unknown {
    return coreErrorBody(status, 'INTERNAL', message);
  }

  // ---- platform-side triggers, called by the control API; each lives with the lifecycle it
  // drives (transactions/, reports/), and a ControlError is the control API's 404/409 ----

  /** An external SPEI credit arrives for a CLABE: a MONEY_IN SPEI_CREDIT is delivered. */
  incomingSpei(input: IncomingSpei): { transactionId: string; trackingKey: string } {
    return incomingSpei(this, input);
  }

  /** Moves a penny validation's CEP lookup to DELAYED, COMPLETED or FAILED now. */
  cepOutcome(transactionId: string, input: CepOutcome): { status: string } {
    return cepOutcome(this, transactionId, input);
  }

  /** Liquidates an outbound SPEI transfer now. */
  settleSpei(transactionId: string): { status: string } {
    return settleSpei(this, transactionId);
  }

  /** Rejects, cancels or declines an outbound SPEI transfer. */
  rejectSpei(transactionId: string, input: SpeiRejection): { status: string } {
    return rejectSpei(this, transactionId, input);
  }

  /** The network reverses a liquidated outbound transfer: refund transaction + REFUND event. */
  reverseSpei(transactionId: string): { refundTransactionId: string } {
    return reverseSpei(this, transactionId);
  }

  /** Emits a REPORT event. */
  emitReport(input: ReportRequest): { fileName: string } {
    return emitReport(this, input);
  }

  /** The CSV file a REPORT event announced, in the format `paykit reports import` reads. */
  reportFile(fileName: string, clientId?: string): string {
    return reportFile(this, fileName, clientId);
  }

  /** Opens a private account with a CLABE instrument for an owner (remittance receive uses it). */
  openPrivateAccount(input: { clientId: string; ownerId: string; holderName: string; rfc?: string }): {
    accountId: string;
    instrumentId: string;
    clabe: string;
  } {
    return openPrivateAccount(this, input);
  }
}
