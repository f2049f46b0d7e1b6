import { describe, expect, it } from 'vitest';
import { makeForModel } from '../../scripts/demo-site/demo-catalog.js';

describe('demo catalog: the make of a Fast Iron model designation', () => {
  it('names the maker a designation belongs to, per equipment type', () => {
    expect(makeForModel('302.5', 1)).toBe('Caterpillar');
    expect(makeForModel('235C', 1)).toBe('Caterpillar');
    expect(makeForModel('200CLC', 1)).toBe('John Deere');
    expect(makeForModel('TB135', 1)).toBe('Takeuchi');
    expect(makeForModel('992C', 3)).toBe('Caterpillar');
    expect(makeForModel('L70D', 3)).toBe('Volvo');
    expect(makeForModel('921E', 3)).toBe('Case');
    expect(makeForModel('1845C', 5)).toBe('Case');
    expect(makeForModel('MC80', 5)).toBe('Volvo');
    expect(makeForModel('555E', 4)).toBe('New Holland');
    expect(makeForModel('570A', 10)).toBe('John Deere');
  });

  it('leaves a designation two makers share, or one it does not know, without a make', () => {
    // Case and John Deere both sold 850C and 650G dozers.
    expect(makeForModel('850C', 2)).toBeNull();
    expect(makeForModel('650G', 2)).toBeNull();
    expect(makeForModel('240', 5)).toBeNull();
    // A designation is one maker's only within its type: 416 is a Caterpillar backhoe, not an excavator.
    expect(makeForModel('416', 4)).toBe('Caterpillar');
    expect(makeForModel('416', 1)).toBeNull();
  });
});
