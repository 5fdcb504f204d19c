// openapi-typescript's maps of specs/remittance.yaml: `paths`, `webhooks`, `components`, `operations`.
export type * from './generated/paths.gen.ts';
