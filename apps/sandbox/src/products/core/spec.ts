// The core service's types from specs/core.yaml (openapi-typescript): every body it answers or
// delivers is built against them.
import type { components, operations } from '@paykit/core-client/paths';
import type { SuccessBody } from '../../spec-types.ts';

export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The success body the spec documents for an operation (`unknown` where it is not shown). */
export type Ok<OperationId extends keyof operations> = SuccessBody<operations[OperationId]>;
