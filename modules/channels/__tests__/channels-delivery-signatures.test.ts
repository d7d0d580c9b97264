import { readUnsubscribeToken, unsubscribeToken } from '../delivery/links';
import { meteringOf } from '../delivery/services';
import {
  metaSignature, stewardEventSignature, twilioSignature, verifyMetaSignature, verifyStewardEventSignature, verifyTwilioSignature,
} from '../delivery/signatures';

/** Expected values computed independently (Python hmac) from the providers' documented recipes. */
describe('channels delivery: webhook signatures', () => {
  const url = 'https://example.org/webhooks/channels/sms/status/a/b';
  const params = { MessageStatus: 'delivered', AccountSid: 'AC1', MessageSid: 'SM1', To: '+447700900123' };

  it('signs Twilio-style: HMAC-SHA1 of the URL and the parameters sorted by name, base64', () => {
    expect(twilioSignature('secret-token', url, params)).toBe('Mr6C9n7GyY+pifn1tJrMY9/hLK0=');
    expect(verifyTwilioSignature('secret-token', url, params, 'Mr6C9n7GyY+pifn1tJrMY9/hLK0=')).toBe(true);
    expect(verifyTwilioSignature('secret-token', url, { ...params, MessageStatus: 'undelivered' }, 'Mr6C9n7GyY+pifn1tJrMY9/hLK0=')).toBe(false);
    expect(verifyTwilioSignature('secret-token', `${url}x`, params, 'Mr6C9n7GyY+pifn1tJrMY9/hLK0=')).toBe(false);
    expect(verifyTwilioSignature('other-token', url, params, 'Mr6C9n7GyY+pifn1tJrMY9/hLK0=')).toBe(false);
    expect(verifyTwilioSignature('secret-token', url, params, undefined)).toBe(false);
  });

  it('signs Meta-style: sha256= and the hex HMAC-SHA256 of the raw body', () => {
    const body = Buffer.from('{"a":1}');
    expect(metaSignature('app-secret', body)).toBe('sha256=a2ac6607a24977f9757e6d78319ae1660ad42ffeee0ee3f0dff30a92bcf85448');
    expect(verifyMetaSignature('app-secret', body, metaSignature('app-secret', body))).toBe(true);
    expect(verifyMetaSignature('app-secret', Buffer.from('{"a":2}'), metaSignature('app-secret', body))).toBe(false);
    expect(verifyMetaSignature('app-secret', body, '')).toBe(false);
  });

  it('signs Steward email events over the timestamp and body, and returns the timestamp only when valid', () => {
    const body = Buffer.from('{"id":"e"}');
    expect(stewardEventSignature('evt-secret', body, 1_700_000_000)).toBe('t=1700000000,v1=fcb0590148532f1f8794d74b0ae7028c07412d00476ea4de7817f7301199206b');
    expect(verifyStewardEventSignature('evt-secret', body, stewardEventSignature('evt-secret', body, 1_700_000_000))).toBe(1_700_000_000);
    const moved = 't=1700000001,v1=fcb0590148532f1f8794d74b0ae7028c07412d00476ea4de7817f7301199206b';
    expect(verifyStewardEventSignature('evt-secret', body, moved)).toBeNull();
    expect(verifyStewardEventSignature('evt-secret', body, 'garbage')).toBeNull();
  });
});

describe('channels delivery: unsubscribe tokens', () => {
  const env = { CHANNELS_SIGNING_KEY: 'k'.repeat(40) };
  const orgId = '11111111-1111-4111-8111-111111111111';
  const messageId = '22222222-2222-4222-8222-222222222222';

  it('names one message and refuses any change to it', () => {
    const token = unsubscribeToken(orgId, messageId, env);
    expect(readUnsubscribeToken(token, env)).toEqual({ orgId, messageId });
    expect(readUnsubscribeToken(token.replace(messageId, '33333333-3333-4333-8333-333333333333'), env)).toBeNull();
    expect(readUnsubscribeToken(`${token}x`, env)).toBeNull();
    expect(readUnsubscribeToken(token, { CHANNELS_SIGNING_KEY: 'j'.repeat(40) })).toBeNull();
    expect(readUnsubscribeToken('not-a-token', env)).toBeNull();
  });
});

describe('channels delivery: metering', () => {
  it('meters an SMS by its exact segments and refuses one over 10 segments or 1,600 characters', () => {
    expect(meteringOf('sms', 'service', { body: 'a'.repeat(160), whatsappPayload: null })).toMatchObject({ units: 1, smsEncoding: 'GSM-7' });
    expect(meteringOf('sms', 'service', { body: 'a'.repeat(161), whatsappPayload: null })).toMatchObject({ units: 2 });
    expect(meteringOf('sms', 'service', { body: `${'a'.repeat(69)}🙂`, whatsappPayload: null })).toMatchObject({ units: 2, smsEncoding: 'UCS-2' });
    expect(meteringOf('sms', 'service', { body: 'a'.repeat(1530), whatsappPayload: null })).toMatchObject({ units: 10 });
    expect(() => meteringOf('sms', 'service', { body: 'a'.repeat(1531), whatsappPayload: null })).toThrow(/11 segments/);
    expect(() => meteringOf('sms', 'service', { body: 'x'.repeat(10_240), whatsappPayload: null })).toThrow(/at most 10 segments/);
  });

  it('meters WhatsApp one message by category: free-form service, templates by purpose', () => {
    expect(meteringOf('whatsapp', 'marketing', { body: 'hi', whatsappPayload: null })).toMatchObject({ units: 1, whatsappCategory: 'service' });
    expect(meteringOf('whatsapp', 'marketing', { body: 'hi', whatsappPayload: { name: 't' } })).toMatchObject({ whatsappCategory: 'marketing' });
    expect(meteringOf('whatsapp', 'service', { body: 'hi', whatsappPayload: { name: 't' } })).toMatchObject({ whatsappCategory: 'utility' });
  });
});
