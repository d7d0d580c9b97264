/**
 * Family relationship labels. A label describes the related contact relative
 * to the contact: (Anna, Ben, 'son') means Ben is Anna's son. Each label has a
 * kind, and each kind an inverse kind whose gendered word depends on the gender
 * of the person it describes.
 */
export type Gender = 'female' | 'male' | 'other' | 'undisclosed' | null;

interface Kind {
  neutral: string;
  female: string;
  male: string;
  inverse: string;
  /** Links that normally share a household. */
  household: boolean;
}

const KINDS: Record<string, Kind> = {
  spouse: { neutral: 'spouse', female: 'wife', male: 'husband', inverse: 'spouse', household: true },
  partner: { neutral: 'partner', female: 'partner', male: 'partner', inverse: 'partner', household: true },
  parent: { neutral: 'parent', female: 'mother', male: 'father', inverse: 'child', household: true },
  child: { neutral: 'child', female: 'daughter', male: 'son', inverse: 'parent', household: true },
  sibling: { neutral: 'sibling', female: 'sister', male: 'brother', inverse: 'sibling', household: false },
  grandparent: { neutral: 'grandparent', female: 'grandmother', male: 'grandfather', inverse: 'grandchild', household: false },
  grandchild: { neutral: 'grandchild', female: 'granddaughter', male: 'grandson', inverse: 'grandparent', household: false },
  auntuncle: { neutral: 'aunt/uncle', female: 'aunt', male: 'uncle', inverse: 'niblings', household: false },
  niblings: { neutral: 'niece/nephew', female: 'niece', male: 'nephew', inverse: 'auntuncle', household: false },
  guardian: { neutral: 'guardian', female: 'guardian', male: 'guardian', inverse: 'ward', household: true },
  ward: { neutral: 'ward', female: 'ward', male: 'ward', inverse: 'guardian', household: true },
};

/** Every accepted word → its kind. */
const WORD_TO_KIND = new Map<string, string>();
for (const [kind, words] of Object.entries(KINDS)) {
  for (const word of [words.neutral, words.female, words.male]) WORD_TO_KIND.set(word, kind);
}
WORD_TO_KIND.set('aunt', 'auntuncle');
WORD_TO_KIND.set('uncle', 'auntuncle');
WORD_TO_KIND.set('niece', 'niblings');
WORD_TO_KIND.set('nephew', 'niblings');

export const RELATIONSHIP_LABELS: readonly string[] = [...WORD_TO_KIND.keys()].filter((w) => !w.includes('/')).sort();
export const RELATIONSHIP_WORDS: ReadonlySet<string> = new Set([...RELATIONSHIP_LABELS, 'family', 'household', 'relative', 'relationship']);

export function isRelationshipLabel(label: string): boolean {
  return WORD_TO_KIND.has(label.toLowerCase()) && !label.includes('/');
}

function wordFor(kind: Kind, gender: Gender): string {
  if (gender === 'female') return kind.female;
  if (gender === 'male') return kind.male;
  return kind.neutral;
}

/**
 * The label for the reverse direction. For (A, B, label) the inverse row is
 * (B, A, inverse), and `inverse` describes A, so it takes A's gender.
 */
export function inverseLabel(label: string, genderOfContact: Gender): string {
  const kind = KINDS[WORD_TO_KIND.get(label.toLowerCase()) ?? ''];
  if (!kind) throw new Error(`not a relationship label: ${label}`);
  return wordFor(KINDS[kind.inverse], genderOfContact);
}

export function sharesHousehold(label: string): boolean {
  return KINDS[WORD_TO_KIND.get(label.toLowerCase()) ?? '']?.household ?? false;
}
