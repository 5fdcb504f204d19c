// The platform-side triggers of core transactions, called by CoreService for the control API.
// Each lives with the lifecycle it drives (tx-*.ts); a ControlError is the control API's 404/409.
export { incomingSpei } from './tx-money-in.ts';
export { cepOutcome } from './tx-penny.ts';
export { settleSpei, rejectSpei, reverseSpei } from './tx-transfer.ts';
export { emitReport } from './tx-report.ts';
