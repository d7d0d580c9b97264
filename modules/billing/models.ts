import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type ModelAttributeColumnOptions } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

/** The billing module's tables (migrations/2026.11.28T06.00.00.billing.ts); only this module imports them. */

const req = (type: ModelAttributeColumnOptions['type'], extra: Partial<ModelAttributeColumnOptions> = {}): ModelAttributeColumnOptions => ({ type, allowNull: false, ...extra });
const opt = (type: ModelAttributeColumnOptions['type']): ModelAttributeColumnOptions => ({ type, allowNull: true });
const now = () => req(DataTypes.DATE, { defaultValue: databaseDefault() });

export class BillingPlanPrice extends Model<InferAttributes<BillingPlanPrice>, InferCreationAttributes<BillingPlanPrice>> {
  declare planCode: string;
  declare amountMinor: number;
  declare currency: string;
  declare rank: number;
}
BillingPlanPrice.init({
  planCode: req(DataTypes.TEXT, { primaryKey: true }), amountMinor: req(DataTypes.INTEGER), currency: req(DataTypes.TEXT), rank: req(DataTypes.INTEGER),
}, { sequelize, tableName: 'billing_plan_prices', timestamps: false });

export class BillingSubscription extends Model<InferAttributes<BillingSubscription>, InferCreationAttributes<BillingSubscription>> {
  declare orgId: string;
  declare planCode: string;
  declare status: string;
  declare trialEndsAt: Date | null;
  declare currentPeriodStart: Date;
  declare currentPeriodEnd: Date;
  declare cancelAtPeriodEnd: CreationOptional<boolean>;
  declare canceledAt: Date | null;
  declare pastDueSince: Date | null;
  declare providerCustomerId: string | null;
  declare providerSubscriptionId: string | null;
  declare lastEventAt: Date | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
BillingSubscription.init({
  orgId: req(DataTypes.UUID, { primaryKey: true }), planCode: req(DataTypes.TEXT), status: req(DataTypes.TEXT), trialEndsAt: opt(DataTypes.DATE),
  currentPeriodStart: req(DataTypes.DATE), currentPeriodEnd: req(DataTypes.DATE), cancelAtPeriodEnd: req(DataTypes.BOOLEAN, { defaultValue: false }),
  canceledAt: opt(DataTypes.DATE), pastDueSince: opt(DataTypes.DATE), providerCustomerId: opt(DataTypes.TEXT), providerSubscriptionId: opt(DataTypes.TEXT), lastEventAt: opt(DataTypes.DATE),
  createdAt: now(), updatedAt: now(),
}, { sequelize, tableName: 'billing_subscriptions', timestamps: false });

export class BillingCheckout extends Model<InferAttributes<BillingCheckout>, InferCreationAttributes<BillingCheckout>> {
  declare id: string;
  declare orgId: string;
  declare planCode: string;
  declare providerSessionId: string;
  declare amountMinor: number;
  declare currency: string;
  declare status: CreationOptional<string>;
  declare createdByUserId: string | null;
  declare createdAt: CreationOptional<Date>;
  declare completedAt: Date | null;
}
BillingCheckout.init({
  id: req(DataTypes.UUID, { primaryKey: true }), orgId: req(DataTypes.UUID), planCode: req(DataTypes.TEXT), providerSessionId: req(DataTypes.TEXT),
  amountMinor: req(DataTypes.INTEGER), currency: req(DataTypes.TEXT), status: req(DataTypes.TEXT, { defaultValue: 'open' }),
  createdByUserId: opt(DataTypes.UUID), createdAt: now(), completedAt: opt(DataTypes.DATE),
}, { sequelize, tableName: 'billing_checkouts', timestamps: false });

export class BillingInvoice extends Model<InferAttributes<BillingInvoice>, InferCreationAttributes<BillingInvoice>> {
  declare id: string;
  declare orgId: string;
  declare number: string;
  declare providerRef: string;
  declare planCode: string;
  declare status: string;
  declare amountDueMinor: number;
  declare amountPaidMinor: CreationOptional<number>;
  declare currency: string;
  declare periodStart: Date;
  declare periodEnd: Date;
  declare createdAt: CreationOptional<Date>;
  declare paidAt: Date | null;
}
BillingInvoice.init({
  id: req(DataTypes.UUID, { primaryKey: true }), orgId: req(DataTypes.UUID), number: req(DataTypes.TEXT), providerRef: req(DataTypes.TEXT),
  planCode: req(DataTypes.TEXT), status: req(DataTypes.TEXT), amountDueMinor: req(DataTypes.INTEGER), amountPaidMinor: req(DataTypes.INTEGER, { defaultValue: 0 }),
  currency: req(DataTypes.TEXT), periodStart: req(DataTypes.DATE), periodEnd: req(DataTypes.DATE), createdAt: now(), paidAt: opt(DataTypes.DATE),
}, { sequelize, tableName: 'billing_invoices', timestamps: false });

export class BillingSpendCap extends Model<InferAttributes<BillingSpendCap>, InferCreationAttributes<BillingSpendCap>> {
  declare orgId: string;
  declare feature: string;
  declare capUnits: number;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
BillingSpendCap.init({
  orgId: req(DataTypes.UUID, { primaryKey: true }), feature: req(DataTypes.TEXT, { primaryKey: true }), capUnits: req(DataTypes.INTEGER), createdAt: now(), updatedAt: now(),
}, { sequelize, tableName: 'billing_spend_caps', timestamps: false });

export class BillingWebhookEvent extends Model<InferAttributes<BillingWebhookEvent>, InferCreationAttributes<BillingWebhookEvent>> {
  declare providerEventId: string;
  declare orgId: string;
  declare type: string;
  declare eventCreatedAt: Date;
  declare outcome: string;
  declare receivedAt: CreationOptional<Date>;
}
BillingWebhookEvent.init({
  providerEventId: req(DataTypes.TEXT, { primaryKey: true }), orgId: req(DataTypes.UUID), type: req(DataTypes.TEXT), eventCreatedAt: req(DataTypes.DATE),
  outcome: req(DataTypes.TEXT), receivedAt: now(),
}, { sequelize, tableName: 'billing_webhook_events', timestamps: false });

export const billingModels = [BillingPlanPrice, BillingSubscription, BillingCheckout, BillingInvoice, BillingSpendCap, BillingWebhookEvent] as const;
