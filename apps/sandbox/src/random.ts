// Seeded randomness: the same seed gives the same ids, tokens and fault decisions, so a seeded
// run of the sandbox is repeatable. Not for secrets that leave a test machine.
import { createHash, randomBytes } from 'node:crypto';

/**
 * A seed no other sandbox process draws: the default, so the ids of two runs never meet in a
 * store that outlives them (a fixed seed repeats a run, ids included: use one on a fresh store).
 */
export function freshRandomSeed(): string {
  return randomBytes(16).toString('hex');
}

export class SeededRandom {
  readonly seed: string;
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: string) {
    this.seed = seed;
    const h = createHash('sha256').update(seed).digest();
    this.#a = h.readUInt32LE(0);
    this.#b = h.readUInt32LE(4);
    this.#c = h.readUInt32LE(8);
    this.#d = h.readUInt32LE(12);
  }

  /** sfc32: a small, fast generator with good statistical quality. */
  nextUint32(): number {
    this.#a >>>= 0;
    this.#b >>>= 0;
    this.#c >>>= 0;
    this.#d >>>= 0;
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /**
   * A generator of its own for one kind of value, drawn from this seed and the label: what it
   * draws does not shift the ids and fault decisions this generator gives afterwards.
   */
  derive(label: string): SeededRandom {
    return new SeededRandom(`${this.seed}\u0000${label}`);
  }

  /** An integer in [0, 2^48) (a safe integer, so JSON carries it exactly). */
  uint48(): number {
    return (this.nextUint32() % 0x10000) * 0x1_0000_0000 + this.nextUint32();
  }

  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.nextUint32() & 0xff;
    return out;
  }

  hex(chars: number): string {
    return this.bytes(Math.ceil(chars / 2))
      .toString('hex')
      .slice(0, chars);
  }

  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.nextUint32() % 10);
    return s;
  }

  /** An RFC 4122 version-4 UUID drawn from this generator. */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}
