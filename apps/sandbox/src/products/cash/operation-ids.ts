// Cash operation ids: integers (the reference types operation_id as one), and receivers dedupe cash
// events by `<operation_id>:<event>`, so an id must never come back while a store remembers it.
// Each sandbox counts up from its own starting point, drawn from its random seed (fresh per start
// by default): neither a restart nor a reset issues an id again. Counting up keeps the ids of one
// run in order, as an operator reading them expects.
import type { SeededRandom } from '../../random.ts';

/** Ids of one run stay below 2^53 (JSON numbers) after this many operations. */
const ROOM = 2 ** 52;

export class OperationIds {
  #last: number;

  constructor(random: SeededRandom) {
    // A generator of its own: drawing the start does not shift the seed's other ids.
    this.#last = random.derive('cash operation ids').uint48();
  }

  next(): number {
    if (this.#last >= ROOM) throw new Error('cash operation ids exhausted: restart the sandbox');
    this.#last += 1;
    return this.#last;
  }
}
