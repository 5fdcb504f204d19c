// openapi-typescript's maps of specs/direct-debit.yaml: `paths`, `webhooks`, `components`, `operations`.
export type * from './generated/paths.gen.ts';
