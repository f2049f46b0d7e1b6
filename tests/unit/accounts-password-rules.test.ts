import { describe, expect, it } from 'vitest';
import { isCommonPassword } from '../../services/accounts/common-passwords.js';
import { passwordProblems, quickRatio, similarAttribute } from '../../services/accounts/password-rules.js';

const owner = { email: 'dana.miller@example.com', firstName: 'Dana', lastName: 'Miller' };

describe('password rules', () => {
  it('accepts a long, uncommon password unrelated to the user', () => {
    expect(passwordProblems('Bulldozer-Sunset-42', owner)).toEqual([]);
    expect(passwordProblems('correct horse battery staple', owner)).toEqual([]);
  });

  it('requires at least 8 characters, counting unicode characters, not bytes', () => {
    expect(passwordProblems('Xq7#mZ2', owner)).toContain('This password is too short. It must contain at least 8 characters.');
    expect(passwordProblems('ÄÖÜßäöüé', owner)).not.toContain('This password is too short. It must contain at least 8 characters.');
  });

  it('refuses entirely numeric passwords', () => {
    expect(passwordProblems('90417263815', owner)).toContain('This password is entirely numeric.');
    expect(passwordProblems('9041726381a', owner)).not.toContain('This password is entirely numeric.');
  });

  it('refuses very common passwords whatever their case', () => {
    expect(isCommonPassword('password')).toBe(true);
    expect(isCommonPassword('Password1')).toBe(true);
    expect(isCommonPassword('QWERTYUIOP')).toBe(true);
    expect(isCommonPassword('Bulldozer-Sunset-42')).toBe(false);
    expect(passwordProblems('iloveyou', owner)).toEqual(['This password is too common.']);
  });

  it('refuses passwords too similar to the e-mail or the name, naming which', () => {
    expect(passwordProblems('dana.miller', owner)).toContain('The password is too similar to the email address.');
    expect(passwordProblems('millerrr', { email: 'x@example.com', lastName: 'Miller' })).toContain('The password is too similar to the last name.');
    expect(similarAttribute('Dana12', { firstName: 'Dana' })).toBe('first name');
    expect(similarAttribute('Dana1234', { firstName: 'Dana' })).toBeUndefined(); // quick ratio 0.67 < 0.7
    expect(similarAttribute('Bulldozer-Sunset-42', owner)).toBeUndefined();
  });

  it('ignores a very short attribute inside a much longer password (Django length ratio)', () => {
    expect(similarAttribute('a'.repeat(30), { firstName: 'Al' })).toBeUndefined();
  });

  it('lists every problem at once', () => {
    expect(passwordProblems('1234567', owner)).toEqual([
      'This password is too short. It must contain at least 8 characters.',
      'This password is entirely numeric.',
    ]);
    expect(passwordProblems('12345678', owner)).toEqual(['This password is too common.', 'This password is entirely numeric.']);
  });

  it('quick ratio matches Python difflib', () => {
    expect(quickRatio('abcd', 'bcde')).toBeCloseTo(0.75);
    expect(quickRatio('', '')).toBe(1);
    expect(quickRatio('abc', 'xyz')).toBe(0);
  });
});
