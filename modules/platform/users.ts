import { randomBytes, randomUUID } from 'node:crypto';
import type { Role } from '../../core/roles';
import { queryOne, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import { hashPassword } from '../../kernel/passwords';
import { Membership, User } from './models';

export interface Member {
  userId: string;
  email: string;
  role: Role;
  safeguarding: boolean;
}

export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

export async function createMember(
  db: Queryable,
  input: { orgId: string; email: string; password?: string; role: Role; safeguarding?: boolean; displayName?: string },
): Promise<Member> {
  const userId = randomUUID();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  await withModels(db, async (transaction) => {
    await User.create({ id: userId, email: input.email, displayName: input.displayName ?? null, passwordHash }, { transaction });
    await Membership.create({ orgId: input.orgId, userId, role: input.role, safeguarding: input.safeguarding ?? false }, { transaction });
  });
  return { userId, email: input.email, role: input.role, safeguarding: input.safeguarding ?? false };
}

// The first owner with their email: a join, so SQL.
export async function findOwner(db: Queryable, orgId: string): Promise<Member | undefined> {
  const row = await queryOne<{ user_id: string; email: string; role: Role; safeguarding: boolean }>(db, `
    SELECT m.user_id, u.email, m.role, m.safeguarding FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.org_id = $1 AND m.role = 'owner' ORDER BY m.created_at LIMIT 1`, [orgId]);
  return row && { userId: row.user_id, email: row.email, role: row.role, safeguarding: row.safeguarding };
}
