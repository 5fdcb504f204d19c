// The direct debit service's types from specs/direct-debit.yaml (openapi-typescript): every body
// it answers is built against them.
import type { components, operations } from '@paykit/direct-debit-client/paths';
import type { SuccessBody } from '../../spec-types.ts';

export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The success body the spec documents for an operation (`unknown` where it is not shown). */
export type Ok<OperationId extends keyof operations> = SuccessBody<operations[OperationId]>;
