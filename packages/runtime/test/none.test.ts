import { describe, expect, it } from 'vitest';
import { isNone, noneToNull } from '../src/core/none.ts';

describe('"None" means none', () => {
  it('null, undefined and the string "None" are none; anything else is a value', () => {
    expect([null, undefined, 'None'].map(isNone)).toEqual([true, true, true]);
    expect(['', 'none', 'NONE', '2025-03-05 10:27:36.888241-06:00', 0, false].map(isNone)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(noneToNull('None')).toBeNull();
    expect(noneToNull('2026-01-01')).toBe('2026-01-01');
  });
});
