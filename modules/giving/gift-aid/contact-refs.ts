import type { ContactRef } from '../../module';

/**
 * Contact columns of the Gift Aid tables. A declaration follows its donor into a merge and outlives
 * their erasure without the link (claims made on it stay explained); a statement is the donor's own
 * record, so it moves with a merge and goes with an erasure.
 */
export const giftAidContactRefs: readonly ContactRef[] = [
  { table: 'giving_gift_aid_declarations', column: 'contact_id', onMerge: 'move', onErase: 'null' },
  { table: 'giving_statements', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
];
