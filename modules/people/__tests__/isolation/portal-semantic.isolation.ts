import { randomUUID } from 'node:crypto';
import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** The member portal and search by meaning: B's key with A's invites, posts, capture sessions, previews and contacts. */
export const isolation: IsolationPart = {
  tables: ['portal_invites', 'portal_sessions', 'portal_posts', 'capture_sessions', 'semantic_segment_previews', 'segments', 'contact_text_embeddings'],
  secrets: ['Apart portal post about the harvest', 'apart-portal@example.org'],
  async seed({ harness, a, ids }) {
    const invite = randomUUID();
    await harness.pool.query(`INSERT INTO portal_invites (id, org_id, contact_id, channel, address, purpose, send_id, expires_at)
      VALUES ($1, $2, $3, 'email', 'apart-portal@example.org', 'service', $4, now() + interval '7 days')`, [invite, a.orgId, ids.contact, randomUUID()]);
    const post = randomUUID();
    await harness.pool.query('INSERT INTO portal_posts (id, org_id, contact_id, body) VALUES ($1, $2, $3, $4)', [post, a.orgId, ids.contact, 'Apart portal post about the harvest']);
    const capture = randomUUID();
    await harness.pool.query(`INSERT INTO capture_sessions (id, org_id, name, kiosk_token_hash, idle_lock_minutes, last_activity_at)
      VALUES ($1, $2, 'Apart tablet', $3, 5, now() - interval '1 hour')`, [capture, a.orgId, `hash-${capture}`]);
    const preview = (await harness.call(a.apiKey, 'people_build_semantic_segment', { request: 'members over 40' })).previewId as string;
    return { portalInvite: invite, portalPost: post, captureSession: capture, semanticPreview: preview };
  },
  entries: {
    people_list_portal_invites: [{ args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' }, { label: 'unfiltered', args: () => ({}), outcome: 'no_leak' }],
    people_send_portal_invites: [{ args: (i) => ({ contactIds: [i.contact] }), outcome: 'no_leak' }],
    people_manage_portal_invite: [{ args: (i) => ({ inviteId: i.portalInvite, action: 'revoke' }) }, { label: 'resend', args: (i) => ({ inviteId: i.portalInvite, action: 'resend' }) }],
    people_moderate_portal_post: [{ args: (i) => ({ postId: i.portalPost, decision: 'approve' }) }],
    people_unlock_capture_session: [{ args: (i) => ({ captureSessionId: i.captureSession }) }],
    people_build_semantic_segment: [{ args: (i) => ({ previewId: i.semanticPreview, name: 'Taken by B' }) }],
    people_list_similar_contacts: [{ args: (i) => ({ contactId: i.contact }) }],
  },
};
