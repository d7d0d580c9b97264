import { z } from 'zod';

/** Output shapes of store's tools (money in minor units of the shop's currency). */

export const shopSchema = z.object({
  id: z.uuid(), name: z.string(), description: z.string().nullable(), currency: z.string(), fulfilmentModes: z.array(z.enum(['pickup', 'ship', 'digital'])),
  status: z.enum(['draft', 'open', 'paused', 'closed']), refundApprovalAbove: z.number().int().describe('Refunds above this need a person\'s approval'),
  cashSaleLimit: z.number().int().describe('Cash sales up to this need no approval'), checkoutMinutes: z.number().int().describe('How long a checkout link keeps its units'),
  openedAt: z.string().nullable(), locations: z.array(z.object({ id: z.uuid(), name: z.string(), isDefault: z.boolean() }).strict()), createdAt: z.string(),
}).strict();

const quantities = { available: z.number().int(), committed: z.number().int(), unavailable: z.number().int(), onHand: z.number().int().describe('available + committed + unavailable') };

export const levelSchema = z.object({ variantId: z.uuid(), locationId: z.uuid(), ...quantities }).strict();

export const variantSchema = z.object({
  id: z.uuid(), sku: z.string(), title: z.string(), price: z.number().int(), trackInventory: z.boolean(), oversell: z.enum(['deny', 'continue']), lowStockThreshold: z.number().int(),
  inventory: z.object({ ...quantities, locations: z.array(z.object({ locationId: z.uuid(), name: z.string(), ...quantities }).strict()) }).strict().nullable().describe('null: not tracked'),
}).strict();

export const productSchema = z.object({
  id: z.uuid(), shopId: z.uuid(), kind: z.enum(['physical', 'digital', 'ticket']), title: z.string(), description: z.string().nullable(),
  status: z.enum(['draft', 'active', 'archived']), imageMediaId: z.uuid().nullable(), hasDownload: z.boolean(), downloadLimit: z.number().int(), downloadDays: z.number().int(),
  variants: z.array(variantSchema), createdAt: z.string(),
}).strict();

export const orderSchema = z.object({
  id: z.uuid(), shopId: z.uuid(), source: z.enum(['online', 'cash']),
  financialStatus: z.enum(['pending', 'paid', 'partially_refunded', 'refunded', 'voided', 'expired']).describe('pending: awaiting payment at checkoutUrl'),
  fulfilmentStatus: z.enum(['unfulfilled', 'partial', 'fulfilled']), contactId: z.uuid().nullable(), buyerName: z.string().nullable(), buyerEmail: z.string().nullable(),
  currency: z.string(), total: z.number().int(), refunded: z.number().int(), refundable: z.number().int(),
  checkoutUrl: z.string().nullable().describe('Where the buyer pays (while pending)'), expiresAt: z.string().nullable(),
  reservation: z.object({ id: z.uuid(), status: z.enum(['pending', 'ended']), expiresAt: z.string() }).strict().nullable(),
  lines: z.array(z.object({
    id: z.uuid(), variantId: z.uuid(), productId: z.uuid(), kind: z.string(), title: z.string(), sku: z.string(), quantity: z.number().int(),
    unitPrice: z.number().int().describe('The price it was sold at (kept when the product\'s price changes)'), fulfilled: z.number().int(), refunded: z.number().int(),
  }).strict()),
  fulfilments: z.array(z.object({ id: z.uuid(), mode: z.string(), lines: z.array(z.object({ lineId: z.uuid(), quantity: z.number().int() }).strict()), tracking: z.string().nullable(), createdAt: z.string() }).strict()),
  refunds: z.array(z.object({ id: z.uuid(), amount: z.number().int(), restock: z.boolean(), reason: z.string().nullable(), createdAt: z.string() }).strict()),
  downloads: z.array(z.object({
    entitlementId: z.uuid(), productId: z.uuid(), status: z.enum(['active', 'revoked', 'expired', 'used_up']), downloads: z.number().int(), limit: z.number().int(), expiresAt: z.string(),
  }).strict()),
  donation: z.object({
    amount: z.number().int().describe('Minor units given on top of the order; not part of total, never refunded by the store'),
    fundId: z.uuid(),
    donationId: z.uuid().nullable().describe('The giving donation it became once paid (giving_get_donation); refund it there'),
  }).strict().nullable(),
  cancelReason: z.string().nullable(), paidAt: z.string().nullable(), createdAt: z.string(),
}).strict();

export const downloadLinkSchema = z.object({ entitlementId: z.uuid(), productId: z.uuid(), url: z.string(), expiresAt: z.string(), downloadsLeft: z.number().int() }).strict();
