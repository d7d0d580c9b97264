import { gsm7Septets, isGsm7, smsSegments } from '../sms-encoding';

const repeat = (char: string, count: number) => char.repeat(count);

describe('smsSegments: GSM-7', () => {
  it('counts an empty message as no segments', () => {
    expect(smsSegments('')).toEqual({ encoding: 'GSM-7', characters: 0, units: 0, segments: 0, perSegment: 160 });
  });

  it('fits 160 basic characters in one part and splits at 161 into 153-septet parts', () => {
    expect(smsSegments(repeat('a', 160))).toEqual({ encoding: 'GSM-7', characters: 160, units: 160, segments: 1, perSegment: 160 });
    expect(smsSegments(repeat('a', 161))).toEqual({ encoding: 'GSM-7', characters: 161, units: 161, segments: 2, perSegment: 153 });
  });

  it('fills exactly n parts of 153 and opens another at 153n + 1', () => {
    for (const parts of [2, 3, 4, 10]) {
      expect(smsSegments(repeat('a', 153 * parts)).segments).toBe(parts);
      expect(smsSegments(repeat('a', 153 * parts + 1)).segments).toBe(parts + 1);
    }
  });

  it('treats the whole basic set, including accented letters, Greek capitals and newlines, as one septet each', () => {
    const basic = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./09:;<=>?¡AZÄÖÑÜ§¿azäöñüà';
    expect(isGsm7(basic)).toBe(true);
    const result = smsSegments(basic);
    expect(result.encoding).toBe('GSM-7');
    expect(result.units).toBe(Array.from(basic).length);
  });

  it('counts each extension character as two septets', () => {
    for (const char of ['€', '[', ']', '{', '}', '\\', '^', '~', '|', '\f']) expect(gsm7Septets(char)).toBe(2);
    expect(smsSegments('€5 [x]')).toMatchObject({ encoding: 'GSM-7', characters: 6, units: 9, segments: 1 });
    expect(smsSegments(repeat('€', 80))).toMatchObject({ units: 160, segments: 1 });
    expect(smsSegments(repeat('€', 80) + 'a')).toMatchObject({ units: 161, segments: 2 });
  });

  it('never splits an extension character across parts: the part closes one septet short', () => {
    // 152 basic + '€' = 154 septets for part one would split the escape pair, so '€' moves on.
    const text = repeat('a', 152) + '€' + repeat('a', 151);
    const result = smsSegments(text);
    expect(result.units).toBe(305);
    // Naively 305 / 153 rounds up to 2, but part one holds 152 and part two 2 + 151 = 153, then nothing is left.
    expect(result.segments).toBe(2);
    const tight = repeat('a', 152) + '€' + repeat('a', 152);
    expect(tight.length).toBe(305);
    expect(smsSegments(tight)).toMatchObject({ units: 306, segments: 3 });
  });

  it('packs 153 septets of extension pairs as 76 per part (152 septets) with the odd septet left over', () => {
    // 153 euros = 306 septets: 76 euros per part because 77 would need 154.
    expect(smsSegments(repeat('€', 153)).segments).toBe(3);
    expect(smsSegments(repeat('€', 152)).segments).toBe(2);
  });
});

describe('smsSegments: UCS-2', () => {
  it('switches the whole message to UCS-2 for one character outside GSM-7', () => {
    expect(smsSegments(repeat('a', 69) + 'ç')).toEqual({ encoding: 'UCS-2', characters: 70, units: 70, segments: 1, perSegment: 70 });
    expect(smsSegments(repeat('a', 70) + 'ç')).toEqual({ encoding: 'UCS-2', characters: 71, units: 71, segments: 2, perSegment: 67 });
  });

  it('switches for one emoji and counts it as two code units', () => {
    const result = smsSegments('Thank you 🙏');
    expect(result).toEqual({ encoding: 'UCS-2', characters: 11, units: 12, segments: 1, perSegment: 70 });
    expect(smsSegments(repeat('a', 159) + '🙏').segments).toBe(3);
  });

  it('fills exactly n parts of 67 and opens another at 67n + 1', () => {
    for (const parts of [2, 3, 5]) {
      expect(smsSegments('ç' + repeat('a', 67 * parts - 1)).segments).toBe(parts);
      expect(smsSegments('ç' + repeat('a', 67 * parts)).segments).toBe(parts + 1);
    }
  });

  it('never splits a surrogate pair across parts', () => {
    // 66 units + an emoji would split the pair at 67, so the emoji opens part two.
    const text = 'ç' + repeat('a', 65) + '😀' + repeat('a', 65);
    const result = smsSegments(text);
    expect(result.units).toBe(133);
    expect(result.segments).toBe(2);
    const over = 'ç' + repeat('a', 65) + '😀' + repeat('a', 66);
    expect(smsSegments(over)).toMatchObject({ units: 134, segments: 3 });
  });

  it('counts 35 emoji as 70 units in one part and 36 as two parts', () => {
    expect(smsSegments(repeat('😀', 35))).toMatchObject({ characters: 35, units: 70, segments: 1 });
    expect(smsSegments(repeat('😀', 36))).toMatchObject({ characters: 36, units: 72, segments: 2 });
  });

  it('treats lowercase ç and curly quotes as outside GSM-7 (a common surprise)', () => {
    expect(isGsm7('ç')).toBe(false);
    expect(isGsm7('“quoted”')).toBe(false);
    expect(isGsm7('Ç')).toBe(true);
  });
});
