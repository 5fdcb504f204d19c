// The cash service: signed requests, one active webhook per client with an activation test,
// cash operations with 20-digit references whose status changes deliver signed events.
import type { CashOperation, CashOperationRequest, Seed } from '@paykit/contracts';
import type { FastifyInstance } from 'fastify';
import type { SandboxProduct, SandboxRuntime } from '../../runtime.ts';
import { cashErrorBody } from './errors.ts';
import { OperationIds } from './operation-ids.ts';
import * as operations from './operations.ts';
import { registerCashRoutes } from './routes.ts';
import { CashState } from './state.ts';

export class CashService implements SandboxProduct {
  readonly name = 'cash';
  state = new CashState();

  readonly runtime: SandboxRuntime;
  /** Outlives reset: an id issued before a reset is never issued again. */
  readonly #operationIds: OperationIds;

  constructor(runtime: SandboxRuntime) {
    this.runtime = runtime;
    this.#operationIds = new OperationIds(runtime.random);
  }

  register(app: FastifyInstance): void {
    registerCashRoutes(app, this);
  }

  load(seed: Partial<Seed>): void {
    for (const { apiKey, apiSecret } of seed.cash ?? []) this.state.keys.set(apiKey, apiSecret);
  }

  reset(): void {
    this.state = new CashState();
  }

  errorBody(_status: number, message: string): unknown {
    return cashErrorBody(message);
  }

  /** Control API: a pending operation for the (first, or given) cash api key. */
  createOperation(input: CashOperationRequest): CashOperation {
    return operations.createOperation(this.runtime, this.state, input, () => this.#operationIds.next());
  }

  /** Control API: paid, expired or reversed; a closed-reference operation delivers a signed event. */
  setOperationStatus(operationId: number, status: 'paid' | 'expired' | 'reversed'): CashOperation {
    return operations.setOperationStatus(this.runtime, this.state, operationId, status);
  }
}
