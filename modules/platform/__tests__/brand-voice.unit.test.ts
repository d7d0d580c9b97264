import { statementDescriptorProblems, suggestStatementDescriptor, STATEMENT_DESCRIPTOR_MAX } from '../brand/display-name';
import { BRAND_VOICE_PRESETS, FALLBACK_TEMPLATE_ID, presetById, suggestTemplate } from '../brand/presets';

describe('brand voice presets', () => {
  it('are complete voices with unique snake_case ids, the fallback among them', () => {
    const ids = BRAND_VOICE_PRESETS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const preset of BRAND_VOICE_PRESETS) {
      expect(preset.id).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(preset.vocabularyDo.length).toBeGreaterThanOrEqual(2);
      expect(preset.vocabularyDont.length).toBeGreaterThanOrEqual(2);
      // Every field fits what platform_set_brand_voice accepts, so a preset can be edited as it is.
      expect(preset.name.length).toBeLessThanOrEqual(80);
      expect(preset.tone.length).toBeLessThanOrEqual(500);
      expect(preset.sample.length).toBeLessThanOrEqual(500);
      for (const phrase of [...preset.vocabularyDo, ...preset.vocabularyDont]) expect(phrase.length).toBeLessThanOrEqual(80);
    }
    expect(presetById(FALLBACK_TEMPLATE_ID)).toBeDefined();
  });

  it('suggests only presets that exist, preferring the most specific word of the name', () => {
    for (const name of ['St Peter\'s Catholic Church', 'Holy Trinity Baptist', 'Cathedral of St Paul', 'Grace Community Church', 'Westside Student Church']) {
      expect(presetById(suggestTemplate({ name }).templateId)).toBeDefined();
    }
    expect(suggestTemplate({ name: 'St Peter\'s Catholic Church' }).templateId).toBe('catholic_parish');
    expect(suggestTemplate({ name: 'Holy Trinity Baptist' }).templateId).toBe('baptist_fellowship');
    expect(suggestTemplate({ name: 'Grace Community Church' })).toEqual({ templateId: FALLBACK_TEMPLATE_ID, reason: expect.any(String) });
    // "Stockport" starts with "St" but is not a saint's name.
    expect(suggestTemplate({ name: 'Stockport Hope' }).templateId).toBe(FALLBACK_TEMPLATE_ID);
  });
});

describe('statement descriptor rules', () => {
  it('accepts the bounds and the allowed punctuation', () => {
    for (const text of ['ST BB', 'A'.repeat(STATEMENT_DESCRIPTOR_MAX), 'ST MARYS, ANYTOWN', 'FOOD BANK #2 (EAST)', 'HOPE+GRACE: KIDS!']) {
      expect({ text, problems: statementDescriptorProblems(text) }).toEqual({ text, problems: [] });
    }
  });

  it('names every rule a text breaks', () => {
    expect(statementDescriptorProblems('1234')).toEqual([expect.stringContaining('5 to 22'), expect.stringContaining('at least one letter')]);
    expect(statementDescriptorProblems('GIFT * ONLINE')).toEqual([expect.stringContaining('< > \\'), expect.stringContaining('name the organisation')]);
  });

  it('suggests statement text from a trading name, folding accents and cutting at a word', () => {
    expect(suggestStatementDescriptor('Église Réformée de Genève')).toBe('EGLISE REFORMEE DE');
    expect(suggestStatementDescriptor('St Mark\'s "Old" Church')).toBe('ST MARKS OLD CHURCH');
    expect(suggestStatementDescriptor('Ab')).toBeNull();
    expect(suggestStatementDescriptor('Donations')).toBeNull();
  });
});
