import { describe, expect, it } from 'vitest';
import { heapGrowthGiven } from '../../src/heap.js';

describe('heap growth limit', () => {
  it('yields to a --heap-growing-percent given to node, in either spelling, and only to that flag', () => {
    expect(heapGrowthGiven([])).toBe(false);
    expect(heapGrowthGiven(['--enable-source-maps', '--max-old-space-size=512'])).toBe(false);
    expect(heapGrowthGiven(['--heap-prof', '--heap-growing'])).toBe(false);
    expect(heapGrowthGiven(['--heap-growing-percent=50'])).toBe(true);
    expect(heapGrowthGiven(['--max-old-space-size=512', '--heap_growing_percent=80'])).toBe(true);
  });
});
