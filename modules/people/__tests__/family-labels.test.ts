import { inverseLabel, isRelationshipLabel, sharesHousehold } from '../family-labels';

describe('family relationship labels', () => {
  // (label describing B relative to A, A's gender) → label describing A relative to B
  it.each([
    ['spouse', 'female', 'wife'],
    ['spouse', 'male', 'husband'],
    ['spouse', null, 'spouse'],
    ['wife', 'male', 'husband'],
    ['husband', 'female', 'wife'],
    ['husband', 'undisclosed', 'spouse'],
    ['partner', 'female', 'partner'],
    ['daughter', 'female', 'mother'],
    ['daughter', 'male', 'father'],
    ['son', null, 'parent'],
    ['child', 'other', 'parent'],
    ['mother', 'male', 'son'],
    ['father', 'female', 'daughter'],
    ['parent', null, 'child'],
    ['grandmother', 'male', 'grandson'],
    ['grandfather', 'female', 'granddaughter'],
    ['grandparent', null, 'grandchild'],
    ['grandson', 'female', 'grandmother'],
    ['granddaughter', null, 'grandparent'],
    ['sister', 'male', 'brother'],
    ['brother', 'female', 'sister'],
    ['sibling', null, 'sibling'],
    ['aunt', 'male', 'nephew'],
    ['uncle', 'female', 'niece'],
    ['niece', null, 'aunt/uncle'],
    ['nephew', 'female', 'aunt'],
    ['guardian', null, 'ward'],
    ['ward', 'male', 'guardian'],
  ] as const)('%s with a %s contact inverts to %s', (label, gender, expected) => {
    expect(inverseLabel(label, gender)).toBe(expected);
  });

  it('inverting twice returns a label of the original kind', () => {
    expect(inverseLabel(inverseLabel('daughter', 'female'), 'female')).toBe('daughter');
    expect(inverseLabel(inverseLabel('grandson', 'male'), 'male')).toBe('grandson');
  });

  it('knows which links share a household', () => {
    expect(sharesHousehold('wife')).toBe(true);
    expect(sharesHousehold('son')).toBe(true);
    expect(sharesHousehold('sister')).toBe(false);
    expect(sharesHousehold('grandmother')).toBe(false);
  });

  it('refuses words that are not relationships', () => {
    expect(isRelationshipLabel('friend')).toBe(false);
    expect(isRelationshipLabel('aunt/uncle')).toBe(false);
    expect(() => inverseLabel('friend', null)).toThrow('not a relationship label');
  });
});
