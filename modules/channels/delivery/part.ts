import type { ModulePart } from '../../module';

/** The delivery part of the channels module (joined in ../index.ts). */
export const deliveryPart: ModulePart = {
  name: 'delivery',
};
