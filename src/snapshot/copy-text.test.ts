import { describe, expect, it } from 'vitest';
import { arrayLiteral, copyField, copyRow } from './copy-text.ts';

describe('COPY text encoding', () => {
  it('writes NULL as \\N and leaves plain text alone', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField('Wireframes, v2')).toBe('Wireframes, v2');
  });

  it('escapes the characters that would end a column or a row', () => {
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
  });

  it('keeps a literal "\\N" text apart from NULL', () => {
    expect(copyField('\\N')).toBe('\\\\N');
  });

  it('quotes array elements so commas, quotes and braces survive', () => {
    expect(arrayLiteral(['a,b', 'say "hi"', '{x}', 'back\\slash'])).toBe(
      '{"a,b","say \\"hi\\"","{x}","back\\\\slash"}',
    );
    expect(arrayLiteral([])).toBe('{}');
  });

  it('joins a row with tabs and ends it with a newline', () => {
    expect(copyRow(['1', null, 'x'])).toBe('1\t\\N\tx\n');
  });
});
