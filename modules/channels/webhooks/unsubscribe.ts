import type { Router } from 'express';
import { queryOne, withTransaction } from '../../../db/pool';
import { withdrawConsent } from '../audience/consent';
import { WEBHOOK_PATHS, readUnsubscribeToken } from '../delivery/links';
import { escapeHtml, page, rawText, type RawRequest, type WebhookContext } from './shared';

/** The one-click unsubscribe page a message's List-Unsubscribe link opens; its signed token names one message. */
export function unsubscribeRoutes(router: Router, { pool, raw }: WebhookContext): void {
  // RFC 8058 one-click unsubscribe. GET only shows a confirm page (mail scanners follow links); POST withdraws the
  // contact's email consent for the message's purpose (consent history keeps the withdrawal as evidence).
  router.get(`${WEBHOOK_PATHS.unsubscribe}/:token`, (req, res) => {
    if (!readUnsubscribeToken(req.params.token)) {
      res.status(404).type('html').send(page('Link not recognised', '<h1>This unsubscribe link is not recognised</h1><p>It may have been copied incompletely.</p>'));
      return;
    }
    res.status(200).type('html').send(page('Unsubscribe', '<h1>Unsubscribe from these emails?</h1>'
      + `<form method="post" action="${escapeHtml(req.originalUrl)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`));
  });

  router.post(`${WEBHOOK_PATHS.unsubscribe}/:token`, raw, async (req, res, next) => {
    try {
      const named = readUnsubscribeToken(req.params.token);
      if (!named) {
        res.status(404).type('html').send(page('Link not recognised', '<h1>This unsubscribe link is not recognised</h1>'));
        return;
      }
      const form = new URLSearchParams(rawText(req as RawRequest));
      if (form.get('List-Unsubscribe') !== 'One-Click') {
        res.status(400).type('html').send(page('Unsubscribe', '<h1>Nothing changed</h1><p>The request did not confirm the unsubscribe.</p>'));
        return;
      }
      const done = await withTransaction(pool, async (db) => {
        const message = await queryOne<{ contact_id: string | null; purpose: 'marketing' | 'charitable_purpose' | 'service' }>(db,
          "SELECT contact_id, purpose FROM channel_messages WHERE org_id = $1 AND id = $2 AND channel = 'email'", [named.orgId, named.messageId]);
        if (!message?.contact_id) return false;
        // Leaves the list this email came from (its purpose by email), as RFC 8058 means; service email still reaches them.
        await withdrawConsent(db, named.orgId, { contactId: message.contact_id, channel: 'email', purpose: message.purpose, source: 'one_click_unsubscribe' });
        return true;
      });
      if (!done) {
        res.status(404).type('html').send(page('Link not recognised', '<h1>This unsubscribe link is not recognised</h1>'));
        return;
      }
      res.status(200).type('html').send(page('Unsubscribed', '<h1>You are unsubscribed</h1><p>You will get no more of these emails.</p>'));
    } catch (error) {
      next(error);
    }
  });
}
