// openapi-typescript's maps of specs/cash.yaml: `paths`, `webhooks`, `components`, `operations`.
export type * from './generated/paths.gen.ts';
