import { analyseContent, renderContent, whatsAppTemplateDefinition, type VersionContent } from '../content';
import { escapeHtml, parseTemplateText } from '../syntax';
import { whatsAppNameFor } from '../whatsapp-review';

const content = (overrides: Partial<VersionContent>): VersionContent => ({
  channel: 'sms', purpose: 'service', locale: 'en-GB', subject: null, body: 'Hello', html: null, variables: [], ...overrides,
});
const codes = (findings: Array<{ code: string }>) => findings.map((finding) => finding.code);

describe('placeholder syntax', () => {
  it('reads {{name}} with optional inner spaces, in first-use order without repeats', () => {
    const parsed = parseTemplateText('Hi {{first_name}} and {{ rota }} and {{first_name}}', 'body');
    expect(parsed.problems).toEqual([]);
    expect(parsed.variables).toEqual(['first_name', 'rota']);
  });

  it.each([
    ['{{#if x}}', /not a variable/],
    ['{{{raw}}}', /not a variable/],
    ['{{First}}', /not a variable/],
    ['{{a.b}}', /not a variable/],
    ['{{ name | upper }}', /not a variable/],
    ['{{}}', /not a variable/],
    ['Hi {{name', /never closed/],
  ])('refuses %s', (text, message) => {
    const parsed = parseTemplateText(text, 'body');
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0].message).toMatch(message);
  });

  it('leaves single braces alone', () => {
    expect(parseTemplateText('Costs {5} or {x}', 'body')).toMatchObject({ problems: [], variables: [] });
  });

  it('escapes the five HTML specials', () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jo'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jo&#39;&lt;/a&gt;');
  });
});

describe('rendering', () => {
  it('lists every missing or blank variable and renders nothing', () => {
    const attempt = renderContent(content({ body: '{{a}} {{b}} {{c}}', variables: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }), { a: 'x', b: ' ' });
    expect(attempt).toEqual({ ok: false, reason: 'missing', missing: ['b', 'c'] });
  });

  it('escapes merge data in HTML and not in text or subject', () => {
    const attempt = renderContent(content({ channel: 'email', subject: 'For {{n}}', body: 'Hi {{n}}', html: '<p>Hi {{n}}</p>', variables: [{ name: 'n' }] }), { n: '<i>A&B</i>' });
    expect(attempt).toMatchObject({ ok: true, rendered: { subject: 'For <i>A&B</i>', text: 'Hi <i>A&B</i>', html: '<p>Hi &lt;i&gt;A&amp;B&lt;/i&gt;</p>' } });
  });

  it('counts SMS segments of the rendered text, not the template', () => {
    const attempt = renderContent(content({ body: 'Hi {{n}}', variables: [{ name: 'n' }] }), { n: 'a'.repeat(200) });
    expect(attempt.ok && attempt.rendered.sms).toMatchObject({ encoding: 'GSM-7', units: 203, segments: 2 });
  });
});

describe('lint and channel rules', () => {
  it('flags an undeclared variable as an error, and an unused or example-less one as warnings', () => {
    const analysis = analyseContent(content({ body: 'Hi {{first_name}} {{nick}} {{rota}}', variables: [{ name: 'rota' }, { name: 'spare', example: 'x' }] }));
    expect(codes(analysis.errors)).toEqual(['undeclared_variable']);
    expect(codes(analysis.warnings).sort()).toEqual(['unused_variable', 'variable_without_example']);
  });

  it('warns about link shorteners only for real shortener hosts', () => {
    expect(codes(analyseContent(content({ body: 'See https://bit.ly/x' })).warnings)).toContain('url_shortener');
    expect(codes(analyseContent(content({ body: 'See (tinyurl.com/abc) or <a href="https://www.t.co/x">' })).warnings)).toContain('url_shortener');
    expect(codes(analyseContent(content({ body: 'See https://example.org/bit.ly/ and orbit.lyra.com/x' })).warnings)).not.toContain('url_shortener');
  });

  it('wants unsubscribe wording in marketing email and STOP wording in marketing SMS', () => {
    expect(codes(analyseContent(content({ channel: 'email', purpose: 'marketing', subject: 'S', body: 'Give!' })).warnings)).toContain('missing_unsubscribe_wording');
    expect(codes(analyseContent(content({ channel: 'email', purpose: 'marketing', subject: 'S', body: 'Give! Unsubscribe any time.' })).warnings)).not.toContain('missing_unsubscribe_wording');
    expect(codes(analyseContent(content({ purpose: 'marketing', body: 'Give!' })).warnings)).toContain('missing_stop_wording');
    expect(codes(analyseContent(content({ purpose: 'service', body: 'Rota' })).warnings)).toEqual([]);
  });

  it('warns past 3 SMS parts and refuses past 10, judged with the examples', () => {
    expect(codes(analyseContent(content({ body: 'a'.repeat(153 * 3 + 1) })).warnings)).toContain('sms_many_segments');
    expect(codes(analyseContent(content({ body: 'a'.repeat(153 * 10 + 1) })).errors)).toContain('sms_too_long');
    expect(codes(analyseContent(content({ body: `x {{long}}`, variables: [{ name: 'long', example: 'b'.repeat(1600) }] })).errors)).toContain('sms_too_long');
  });

  it('applies WhatsApp\'s review rules', () => {
    const wa = (overrides: Partial<VersionContent>) => codes(analyseContent(content({ channel: 'whatsapp', ...overrides })).errors);
    expect(wa({ body: '{{first_name}}, hello there' })).toContain('whatsapp_edge_variable');
    expect(wa({ body: 'Hello {{first_name}}' })).toContain('whatsapp_edge_variable');
    expect(wa({ body: 'Hello {{first_name}} {{last_name}} there' })).toContain('whatsapp_adjacent_variables');
    expect(wa({ body: 'Hello {{rota}} there', variables: [{ name: 'rota' }] })).toContain('whatsapp_example_required');
    expect(wa({ body: 'x'.repeat(1025) })).toContain('whatsapp_body_too_long');
    expect(wa({ subject: '{{first_name}} {{last_name}}', body: 'Hello there' })).toContain('whatsapp_header_variables');
    expect(wa({ body: 'Hello {{first_name}}, see you Sunday.' })).toEqual([]);
  });

  it('builds the Meta template definition with named parameters and their examples', () => {
    const definition = whatsAppTemplateDefinition(content({ channel: 'whatsapp', locale: 'cy', subject: 'For {{first_name}}', body: 'Hi {{first_name}}, {{rota}} rota.', variables: [{ name: 'rota', example: 'tea' }] }), 'rota_v1', 'UTILITY');
    expect(definition).toEqual({
      name: 'rota_v1', language: 'cy', category: 'UTILITY', parameter_format: 'NAMED',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'For {{first_name}}', example: { header_text_named_params: [{ param_name: 'first_name', example: 'Sam' }] } },
        { type: 'BODY', text: 'Hi {{first_name}}, {{rota}} rota.', example: { body_text_named_params: [{ param_name: 'first_name', example: 'Sam' }, { param_name: 'rota', example: 'tea' }] } },
      ],
    });
  });

  it('derives WhatsApp names Meta accepts', () => {
    expect(whatsAppNameFor('Rota reminder – Sunday!', 3)).toBe('rota_reminder_sunday_v3');
    expect(whatsAppNameFor('Café Ünïcode', 1)).toBe('cafe_unicode_v1');
    expect(whatsAppNameFor('!!!', 2)).toBe('template_v2');
  });
});
