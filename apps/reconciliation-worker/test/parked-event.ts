// An event the worker parks: a MONEY_IN whose body has no amount (for the console's retry form).
import type { NewEvent } from '@paykit/store';
import { creditEvent } from './credit-event.ts';

export function unreadableCredit(): NewEvent {
  return creditEvent({});
}
