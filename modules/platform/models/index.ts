import type { Sequelize } from 'sequelize';
import { sequelize } from '../../../db/sequelize';
import { Agent } from './agents';
import { ApiKey } from '../../../kernel/models/api-keys';
import { Membership } from '../../../kernel/models/memberships';
import { OAuthAuthorizationRequest } from '../../../kernel/models/oauth-authorization-requests';
import { OAuthClient } from '../../../kernel/models/oauth-clients';
import { OAuthCode } from '../../../kernel/models/oauth-codes';
import { OAuthGrant } from '../../../kernel/models/oauth-grants';
import { OAuthRefreshToken } from '../../../kernel/models/oauth-refresh-tokens';
import { OAuthSession } from '../../../kernel/models/oauth-sessions';
import { OAuthSigningKey } from '../../../kernel/models/oauth-signing-keys';
import { OrgAllowanceOverride } from '../../../kernel/models/org-allowance-overrides';
import { PlatformAdmin } from '../../../kernel/models/platform-admins';
import { PayloadKeyFingerprint } from './payload-key-fingerprint';
import { Organisation } from './organisations';
import { OutboxMessage } from './outbox-messages';
import { PlanAllowance } from '../../../kernel/models/plan-allowances';
import { Plan } from '../../../kernel/models/plans';
import { Proposal } from '../../../kernel/models/proposals';
import { TeamInvite } from './team-invites';
import { CapabilityGap } from './capability-gaps';
import { ToolCallResult } from './tool-call-results';
import { UsageEvent } from '../../../kernel/models/usage-events';
import { User } from './users';

export {
  Agent, ApiKey, CapabilityGap, Membership, OAuthAuthorizationRequest, OAuthClient, OAuthCode, OAuthGrant, OAuthRefreshToken,
  OAuthSession, OAuthSigningKey, OrgAllowanceOverride, Organisation, OutboxMessage, Plan, PayloadKeyFingerprint, PlanAllowance, PlatformAdmin, Proposal,
  TeamInvite, ToolCallResult, UsageEvent, User,
};

const initialised = new WeakSet<Sequelize>();

/** Defines the platform module's models and their associations on `instance`. */
export function initPlatformModels(instance: Sequelize) {
  const models = [
    Plan.initModel(instance), PlanAllowance.initModel(instance), Organisation.initModel(instance),
    OrgAllowanceOverride.initModel(instance), User.initModel(instance), Membership.initModel(instance), ApiKey.initModel(instance),
    UsageEvent.initModel(instance), ToolCallResult.initModel(instance),
    OAuthClient.initModel(instance), OAuthSigningKey.initModel(instance), OAuthSession.initModel(instance),
    OAuthAuthorizationRequest.initModel(instance), OAuthGrant.initModel(instance), OAuthCode.initModel(instance),
    OAuthRefreshToken.initModel(instance), Agent.initModel(instance), Proposal.initModel(instance), OutboxMessage.initModel(instance),
    TeamInvite.initModel(instance), CapabilityGap.initModel(instance), PlatformAdmin.initModel(instance), PayloadKeyFingerprint.initModel(instance),
  ] as const;
  if (initialised.has(instance)) return models;
  initialised.add(instance);

  Plan.hasMany(PlanAllowance, { foreignKey: 'planCode', as: 'allowances' });
  PlanAllowance.belongsTo(Plan, { foreignKey: 'planCode', as: 'plan' });
  Organisation.belongsTo(Plan, { foreignKey: 'planCode', as: 'plan' });
  Organisation.hasMany(OrgAllowanceOverride, { foreignKey: 'orgId', as: 'allowanceOverrides' });

  // People in organisations.
  Organisation.hasMany(Membership, { foreignKey: 'orgId', as: 'memberships' });
  Membership.belongsTo(Organisation, { foreignKey: 'orgId', as: 'organisation' });
  User.hasMany(Membership, { foreignKey: 'userId', as: 'memberships' });
  Membership.belongsTo(User, { foreignKey: 'userId', as: 'user' });
  ApiKey.belongsTo(User, { foreignKey: 'userId', as: 'user' });

  // The OAuth server: a grant and what descends from it.
  OAuthGrant.belongsTo(OAuthClient, { foreignKey: 'clientId', as: 'client' });
  OAuthGrant.belongsTo(User, { foreignKey: 'userId', as: 'user' });
  OAuthGrant.hasMany(OAuthCode, { foreignKey: 'grantId', as: 'codes' });
  OAuthCode.belongsTo(OAuthGrant, { foreignKey: 'grantId', as: 'grant' });
  OAuthGrant.hasMany(OAuthRefreshToken, { foreignKey: 'grantId', as: 'refreshTokens' });
  OAuthRefreshToken.belongsTo(OAuthGrant, { foreignKey: 'grantId', as: 'grant' });
  OAuthAuthorizationRequest.belongsTo(OAuthClient, { foreignKey: 'clientId', as: 'client' });
  OAuthSession.belongsTo(User, { foreignKey: 'userId', as: 'user' });
  return models;
}

/** Every platform model, defined on the process's instance when this file is first imported. */
export const platformModels = initPlatformModels(sequelize);
