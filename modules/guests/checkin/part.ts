import type { ModulePart } from '../../module';

/** The checkin part of the guests module (joined in ../index.ts). */
export const checkinPart: ModulePart = {
  name: 'checkin',
};
