import { sequelize } from '../../../db/sequelize';
import { AuditChainHead } from './chain-heads';
import { AuditEvent } from './audit-events';

export { AuditChainHead, AuditEvent };

/** The audit module's models, defined on the process's instance when this file is first imported. */
export const auditModels = [AuditEvent.initModel(sequelize), AuditChainHead.initModel(sequelize)] as const;
