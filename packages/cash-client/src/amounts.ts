// Cash amounts are whole pesos (integer MXN), unlike core's two-decimal strings: these convert them
// to and from the bigint centavos the rest of paykit counts in, exactly, or throw MoneyError.
import { MoneyError, fromCentavos } from '@paykit/domain';

/** Integer MXN (cash amounts) → centavos. Throws on fractions and on numbers past 2^53 (already inexact). */
export function pesosToCentavos(pesos: number | bigint): bigint {
  if (typeof pesos === 'bigint') return pesos * 100n;
  if (typeof pesos !== 'number')
    throw new MoneyError(`pesos are an integer number or bigint of MXN: got ${describe(pesos)}`);
  if (!Number.isInteger(pesos)) {
    throw new MoneyError(
      `cash amounts are whole pesos (integer MXN): got ${describe(pesos)}; for centavos use a core decimal string and toCentavos`,
    );
  }
  if (!Number.isSafeInteger(pesos)) {
    throw new MoneyError(
      `${pesos} is past Number.MAX_SAFE_INTEGER, so it is no longer exact: pass the amount as a bigint`,
    );
  }
  return BigInt(pesos) * 100n;
}

/** Centavos → integer MXN for cash requests. Throws when the amount has centavos (cash cannot carry them). */
export function centavosToPesos(centavos: bigint): bigint {
  if (typeof centavos !== 'bigint') throw new MoneyError(`centavos are a bigint: got ${describe(centavos)}`);
  if (centavos % 100n !== 0n) {
    throw new MoneyError(
      `${fromCentavos(centavos)} MXN has centavos, but cash amounts are whole pesos: round it explicitly first`,
    );
  }
  return centavos / 100n;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'bigint') return `the bigint ${value}n`;
  if (typeof value === 'string') return 'a string';
  return value === null ? 'null' : `a value of type ${typeof value}`;
}
