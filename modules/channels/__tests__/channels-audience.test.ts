import { DateTime } from 'luxon';
import { normaliseAddress, toE164 } from '../audience/addresses';
import { quietUntil } from '../audience/quiet-hours';
import { checkDomainDns, oneWayOptOutRefusal, statusOfCheck, type TxtResolver } from '../audience/senders';
import { keywordOf } from '../audience/services';

describe('inbound keywords', () => {
  it.each(['STOP', 'stop', ' Stop ', 'STOPALL', 'unsubscribe', 'END', 'quit', 'Cancel', 'stop.'])('%j stops', (text) => {
    expect(keywordOf(text)).toBe('stopped');
  });
  it.each(['START', 'unstop', ' Start\n'])('%j resubscribes', (text) => expect(keywordOf(text)).toBe('resubscribed'));
  it('HELP is help', () => expect(keywordOf('help')).toBe('help'));
  it.each(['please stop', 'stop it', 'STOP STOP', 'stopping', 'I want to quit smoking', '', 'STO P'])('%j is not a keyword (whole message only)', (text) => {
    expect(keywordOf(text)).toBeNull();
  });
});

describe('phone numbers and addresses', () => {
  it('reads E.164, international and national numbers in the organisation\'s country', () => {
    expect(toE164('+44 7700 900123')).toBe('+447700900123');
    expect(toE164('07700 900123', 'GB')).toBe('+447700900123');
    expect(toE164('0044 (7700) 900-123')).toBe('+447700900123');
    expect(toE164('(212) 555-0100', 'US')).toBe('+12125550100');
    expect(toE164('085 123 4567', 'IE')).toBe('+353851234567');
  });
  it('refuses what cannot be E.164', () => {
    for (const bad of ['12345', '+0123456789', '+1234567890123456', 'phone', '07700', '']) expect(toE164(bad)).toBeUndefined();
    expect(() => normaliseAddress('sms', '+0123', { path: 'to' })).toThrow(expect.objectContaining({ code: 'validation_failed', issues: [expect.objectContaining({ path: 'to' })] }));
  });
  it('lower-cases email and refuses what is not one', () => {
    expect(normaliseAddress('email', '  Jo.Bloggs@Example.ORG ')).toBe('jo.bloggs@example.org');
    expect(() => normaliseAddress('email', 'not-an-email')).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });
});

describe('quiet hours', () => {
  const overnight = { enabled: true, start: '21:00', end: '08:00' };
  const at = (iso: string, zone: string) => DateTime.fromISO(iso, { zone }).toJSDate();
  const local = (date: Date | null, zone: string) => (date ? DateTime.fromJSDate(date).setZone(zone).toISO({ suppressMilliseconds: true }) : null);

  it('off, or outside them: send now', () => {
    expect(quietUntil(at('2026-11-24T23:00', 'Europe/London'), { ...overnight, enabled: false }, 'Europe/London')).toBeNull();
    expect(quietUntil(at('2026-11-24T20:59', 'Europe/London'), overnight, 'Europe/London')).toBeNull();
    expect(quietUntil(at('2026-11-24T08:00', 'Europe/London'), overnight, 'Europe/London')).toBeNull();
  });
  it('over midnight: late evening resumes next morning, early morning the same morning', () => {
    expect(local(quietUntil(at('2026-11-24T21:00', 'Europe/London'), overnight, 'Europe/London'), 'Europe/London')).toBe('2026-11-25T08:00:00+00:00');
    expect(local(quietUntil(at('2026-11-25T07:59', 'Europe/London'), overnight, 'Europe/London'), 'Europe/London')).toBe('2026-11-25T08:00:00+00:00');
  });
  it('is read in the recipient\'s zone, not the server\'s', () => {
    // 02:00 UTC is 21:00 in New York (EST): quiet there until 08:00 local, 13:00 UTC.
    const resumes = quietUntil(new Date('2026-11-25T02:00:00Z'), overnight, 'America/New_York');
    expect(resumes?.toISOString()).toBe('2026-11-25T13:00:00.000Z');
    expect(quietUntil(new Date('2026-11-25T02:00:00Z'), overnight, 'Asia/Tokyo')).toBeNull(); // 11:00 in Tokyo
  });
  it('across the clocks changing, the end is the local wall-clock time', () => {
    // UK clocks go back on 25 October 2026: 22:00 BST on the 24th resumes at 08:00 GMT on the 25th (25 hours of night).
    const resumes = quietUntil(at('2026-10-24T22:00', 'Europe/London'), overnight, 'Europe/London');
    expect(resumes?.toISOString()).toBe('2026-10-25T08:00:00.000Z');
    // and forward on 29 March 2026: 22:00 GMT on the 28th resumes at 08:00 BST, 07:00 UTC.
    expect(quietUntil(at('2026-03-28T22:00', 'Europe/London'), overnight, 'Europe/London')?.toISOString()).toBe('2026-03-29T07:00:00.000Z');
  });
  it('within a day (a lunchtime pause)', () => {
    const lunch = { enabled: true, start: '12:00', end: '14:00' };
    expect(local(quietUntil(at('2026-11-24T13:30', 'Europe/London'), lunch, 'Europe/London'), 'Europe/London')).toBe('2026-11-24T14:00:00+00:00');
    expect(quietUntil(at('2026-11-24T14:00', 'Europe/London'), lunch, 'Europe/London')).toBeNull();
  });
});

describe('sender domain DNS checks', () => {
  const resolverOf = (records: Record<string, string[][]>, failing: string[] = []): TxtResolver => ({
    async resolveTxt(name) {
      if (failing.includes(name)) throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
      if (records[name]) return records[name];
      throw Object.assign(new Error('nodata'), { code: 'ENODATA' });
    },
  });
  const good = {
    'example.org': [['v=spf1 mx -all']],
    'sel._domainkey.example.org': [['v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GN']],
    '_dmarc.example.org': [['v=DMARC1; p=none; rua=mailto:d@example.org']],
  };

  it('all three pass: verified', async () => {
    const check = await checkDomainDns(resolverOf(good), 'example.org', 'sel');
    expect(check).toMatchObject({ spf: { result: 'pass', name: 'example.org' }, dkim: { result: 'pass', name: 'sel._domainkey.example.org' }, dmarc: { result: 'pass' } });
    expect(statusOfCheck(check)).toBe('verified');
  });
  it('an SPF record without an all or redirect, two SPF records, a DKIM record with an empty key are invalid', async () => {
    expect((await checkDomainDns(resolverOf({ ...good, 'example.org': [['v=spf1 mx']] }), 'example.org', 'sel')).spf.result).toBe('invalid');
    expect((await checkDomainDns(resolverOf({ ...good, 'example.org': [['v=spf1 -all'], ['v=spf1 mx ~all']] }), 'example.org', 'sel')).spf.result).toBe('invalid');
    expect((await checkDomainDns(resolverOf({ ...good, 'sel._domainkey.example.org': [['v=DKIM1; p=']] }), 'example.org', 'sel')).dkim.result).toBe('invalid');
  });
  it('a failed lookup is pending (try again), nothing found is failed', async () => {
    expect(statusOfCheck(await checkDomainDns(resolverOf(good, ['_dmarc.example.org']), 'example.org', 'sel'))).toBe('pending');
    expect(statusOfCheck(await checkDomainDns(resolverOf({}), 'example.org', 'sel'))).toBe('failed');
  });
});

describe('one-way senders', () => {
  it('marketing through a one-way id needs an opt-out link; service messages and two-way numbers need none', () => {
    expect(oneWayOptOutRefusal({ oneWay: true }, 'marketing', 'Carols on Sunday at 6!')).toMatchObject({ code: 'no_opt_out' });
    expect(oneWayOptOutRefusal({ oneWay: true }, 'charitable_purpose', 'Appeal: give at https://x.org. Opt out: https://x.org/u/1')).toBeNull();
    expect(oneWayOptOutRefusal({ oneWay: true }, 'service', 'Rota: you are on at 9')).toBeNull();
    expect(oneWayOptOutRefusal({ oneWay: false }, 'marketing', 'Carols on Sunday')).toBeNull();
    expect(oneWayOptOutRefusal(null, 'marketing', 'Carols on Sunday')).toBeNull();
  });
});
