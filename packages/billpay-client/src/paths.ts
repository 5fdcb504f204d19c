// openapi-typescript's maps of specs/billpay.yaml: `paths`, `webhooks`, `components`, `operations`.
export type * from './generated/paths.gen.ts';
