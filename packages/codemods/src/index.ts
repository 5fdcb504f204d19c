export {
  migrateMoneyOut,
  type MoneyOutOptions,
  type MoneyOutReport,
  type MoneyOutChange,
  type MoneyOutSkip,
} from './money-out.ts';
export { formatMoneyOutReport } from './format.ts';
export { INTERNAL_TRANSACTION_DEPRECATION, INTERNAL_TRANSACTION_DEPRECATED_SINCE } from './deprecation.ts';
export type { MoneyOutReport as Report } from './money-out.ts';
export { CodemodInputError } from './files.ts';
