import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../api/json-number.ts';
import { parseJsonLosslessly } from './json-body.ts';

describe('parseJsonLosslessly', () => {
  it('keeps every number as its literal text, in objects, arrays and at the top', () => {
    expect(parseJsonLosslessly('{"a": 150.10, "b": [-3.25, 0, 1e3], "c": "7"}')).toEqual({
      a: new JsonNumber('150.10'),
      b: [new JsonNumber('-3.25'), new JsonNumber('0'), new JsonNumber('1e3')],
      c: '7',
    });
    expect(parseJsonLosslessly('12345678901234567890.123')).toEqual(
      new JsonNumber('12345678901234567890.123'),
    );
  });

  it('leaves digits inside strings alone, escaped quotes included', () => {
    expect(parseJsonLosslessly('{"note": "say \\"12\\" or 3.5", "n": null, "t": true}')).toEqual({
      note: 'say "12" or 3.5',
      n: null,
      t: true,
    });
  });

  it('refuses what JSON.parse refuses', () => {
    for (const bad of ['{"a": 01}', '{"a": 1.}', '{"a": --1}', '{"a": 1', '{a: 1}', '"\u0000"'])
      expect(() => parseJsonLosslessly(bad), bad).toThrow(SyntaxError);
  });
});
