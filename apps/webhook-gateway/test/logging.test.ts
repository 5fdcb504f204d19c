// The gateway's log lines go through the runtime's one redaction: a card number (a JSON number, or
// grouped by dots or spaces), a security code or a secret that reaches a line in a field, an error
// or the message is masked as the CLI and the clients mask it; the configured paths stay censored.
import { jsonLineSink } from '@paykit/testing/log-lines';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logging.ts';

describe('gateway logs', () => {
  it('masks card data and secrets in any field, error or message', async () => {
    const { lines, stream } = jsonLineSink();
    const logger = createLogger({ logLevel: 'info', logFile: undefined }, stream);
    logger.error(
      {
        delivery: {
          data: { reference_number: 4111111111111111, cv2: '9177', pin: '9179', credential: 'cred_0123456789' },
        },
        err: new Error('card 5555.5555.5555.4444 declined'),
        adminToken: 'admin-token-0123456789',
        amount: '1500.00',
      },
      'refused 4111-1111-1111-1111',
    );
    await new Promise((resolve) => setImmediate(resolve));
    const text = JSON.stringify(lines);
    for (const hidden of [
      '4111111111111111',
      '4111-1111',
      '5555.5555',
      '9177',
      '9179',
      'cred_0123456789',
      'admin-token',
    ])
      expect(text).not.toContain(hidden);
    expect(lines[0]).toMatchObject({
      msg: 'refused ************1111',
      delivery: { data: { reference_number: '************1111', pin: '[redacted]', credential: '[redacted]' } },
      err: { message: 'card ************4444 declined' },
      adminToken: '[redacted]',
      amount: '1500.00',
    });
  });
});
