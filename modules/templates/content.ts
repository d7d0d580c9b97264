import { smsSegments, type SmsSegments } from './sms-encoding';
import { missingVariables, parseTemplateText, renderPieces, type Piece, type SyntaxProblem } from './syntax';

export const CHANNELS = ['email', 'sms', 'whatsapp'] as const;
export const PURPOSES = ['marketing', 'charitable_purpose', 'service'] as const;
export type Channel = (typeof CHANNELS)[number];
export type Purpose = (typeof PURPOSES)[number];

/** Filled from the contact and the organisation at send time; a template uses them without declaring them. */
export const STANDARD_VARIABLES = ['first_name', 'last_name', 'full_name', 'organisation_name'] as const;
const STANDARD_EXAMPLES: Record<string, string> = { first_name: 'Sam', last_name: 'Taylor', full_name: 'Sam Taylor', organisation_name: 'St Example\'s Church' };

/** SMS longer than this many parts is worth a second look (cost, and carriers split long texts oddly). */
export const SMS_SEGMENT_WARNING = 3;
/** The most parts an SMS template may render to (a send is refused past it). */
export const SMS_MAX_SEGMENTS = 10;

const URL_SHORTENERS = ['bit.ly', 'tinyurl.com', 't.co', 'goo.gl', 'ow.ly', 'is.gd', 'buff.ly', 'rebrand.ly', 'cutt.ly', 'shorturl.at', 'tiny.cc', 'rb.gy'];

export interface DeclaredVariable {
  name: string;
  example?: string;
  description?: string;
}

export interface VersionContent {
  channel: Channel;
  purpose: Purpose;
  locale: string;
  subject: string | null;
  body: string;
  html: string | null;
  variables: DeclaredVariable[];
}

export interface Finding {
  code: string;
  message: string;
  field?: string;
}

export interface Analysis {
  /** Problems that block approval, activation and sending. */
  errors: Finding[];
  /** Things worth a look that do not block. */
  warnings: Finding[];
  /** Every variable the subject, body and HTML use, in first-use order. */
  used: string[];
}

interface ParsedContent {
  subject: Piece[] | null;
  body: Piece[];
  html: Piece[] | null;
  used: string[];
  problems: SyntaxProblem[];
}

function parseContent(content: VersionContent): ParsedContent {
  const subject = content.subject === null ? null : parseTemplateText(content.subject, 'subject');
  const body = parseTemplateText(content.body, 'body');
  const html = content.html === null ? null : parseTemplateText(content.html, 'html');
  const used: string[] = [];
  for (const name of [...(subject?.variables ?? []), ...body.variables, ...(html?.variables ?? [])]) if (!used.includes(name)) used.push(name);
  return {
    subject: subject?.pieces ?? null, body: body.pieces, html: html?.pieces ?? null, used,
    problems: [...(subject?.problems ?? []), ...body.problems, ...(html?.problems ?? [])],
  };
}

const isStandard = (name: string) => (STANDARD_VARIABLES as readonly string[]).includes(name);

/** Syntax, declarations, channel rules and lint, without rendering anything. */
export function analyseContent(content: VersionContent): Analysis {
  const parsed = parseContent(content);
  const errors: Finding[] = parsed.problems.map((problem) => ({ code: 'syntax', field: problem.field, message: problem.message }));
  const warnings: Finding[] = [];
  const declared = new Map(content.variables.map((variable) => [variable.name, variable]));
  for (const name of parsed.used) {
    if (!declared.has(name) && !isStandard(name)) {
      errors.push({ code: 'undeclared_variable', field: 'variables', message: `{{${name}}} is used but not declared (declare it with an example, or use one of ${STANDARD_VARIABLES.join(', ')})` });
    }
  }
  for (const variable of content.variables) {
    if (!parsed.used.includes(variable.name)) warnings.push({ code: 'unused_variable', field: 'variables', message: `${variable.name} is declared but never used` });
    if (!variable.example) warnings.push({ code: 'variable_without_example', field: 'variables', message: `${variable.name} has no example, so previews and reviewers cannot see a realistic message` });
  }
  errors.push(...channelErrors(content, parsed));
  warnings.push(...lintWarnings(content, parsed));
  return { errors, warnings, used: parsed.used };
}

function channelErrors(content: VersionContent, parsed: ParsedContent): Finding[] {
  const errors: Finding[] = [];
  if (content.channel === 'email') {
    if (!content.subject?.trim()) errors.push({ code: 'email_subject_required', field: 'subject', message: 'An email template needs a subject' });
  } else if (content.html !== null) {
    errors.push({ code: 'html_not_allowed', field: 'html', message: `A ${content.channel} template has no HTML part` });
  }
  if (content.channel === 'sms' && content.subject !== null) errors.push({ code: 'subject_not_allowed', field: 'subject', message: 'An SMS has no subject' });
  if (content.channel === 'sms') {
    const sample = sampleRender(content, parsed);
    if (sample && sample.sms!.segments > SMS_MAX_SEGMENTS) {
      errors.push({ code: 'sms_too_long', field: 'body', message: `With the examples it is ${sample.sms!.segments} SMS parts; at most ${SMS_MAX_SEGMENTS} can be sent` });
    }
  }
  if (content.channel === 'whatsapp') errors.push(...whatsAppErrors(content, parsed));
  return errors;
}

/** Meta's rules for a template it will review; breaking one means a certain rejection. */
function whatsAppErrors(content: VersionContent, parsed: ParsedContent): Finding[] {
  const errors: Finding[] = [];
  const body = content.body;
  if (body.length > 1024) errors.push({ code: 'whatsapp_body_too_long', field: 'body', message: `The body is ${body.length} characters; WhatsApp allows 1024` });
  if (content.subject !== null) {
    if (content.subject.length > 60) errors.push({ code: 'whatsapp_header_too_long', field: 'subject', message: 'The header (subject) may have at most 60 characters' });
    const headerVariables = parsed.subject!.filter((piece) => 'variable' in piece).length;
    if (headerVariables > 1) errors.push({ code: 'whatsapp_header_variables', field: 'subject', message: 'The header (subject) may use at most one variable' });
  }
  const first = parsed.body[0];
  const last = parsed.body[parsed.body.length - 1];
  if ((first && 'variable' in first) || (last && 'variable' in last)) {
    errors.push({ code: 'whatsapp_edge_variable', field: 'body', message: 'WhatsApp rejects a body that starts or ends with a variable; put words around it' });
  }
  // Variables with nothing but spaces between them are "adjacent" to Meta's reviewers too.
  const spaced = parsed.body.filter((piece) => !('text' in piece) || piece.text.trim() !== '');
  for (let i = 1; i < spaced.length; i += 1) {
    if ('variable' in spaced[i] && 'variable' in spaced[i - 1]) {
      errors.push({ code: 'whatsapp_adjacent_variables', field: 'body', message: 'Two variables side by side are rejected; put words between them' });
      break;
    }
  }
  for (const name of parsed.used) {
    const declared = content.variables.find((variable) => variable.name === name);
    if (!isStandard(name) && declared && !declared.example) {
      errors.push({ code: 'whatsapp_example_required', field: 'variables', message: `${name} needs an example: WhatsApp reviews every template with sample values` });
    }
  }
  return errors;
}

function lintWarnings(content: VersionContent, parsed: ParsedContent): Finding[] {
  const warnings: Finding[] = [];
  const allText = [content.subject ?? '', content.body, content.html ?? ''].join('\n');
  const hosts = linkHosts(allText);
  const shorteners = URL_SHORTENERS.filter((host) => hosts.has(host));
  if (shorteners.length > 0) {
    warnings.push({ code: 'url_shortener', field: 'body', message: `Link shorteners (${shorteners.join(', ')}) hide where a link goes and are filtered by carriers and spam checks; use the full address` });
  }
  if (content.purpose === 'marketing' && content.channel === 'email' && !/unsubscribe|opt[ -]?out/i.test(allText)) {
    warnings.push({ code: 'missing_unsubscribe_wording', field: 'body', message: 'A marketing email should tell people how to unsubscribe in its words too (the List-Unsubscribe header is added to every marketing email)' });
  }
  if (content.purpose === 'marketing' && content.channel === 'sms' && !/\bSTOP\b/.test(content.body)) {
    warnings.push({ code: 'missing_stop_wording', field: 'body', message: 'A marketing SMS should say how to opt out (e.g. "Reply STOP to opt out")' });
  }
  if (content.channel === 'sms') {
    const sample = sampleRender(content, parsed);
    if (sample && sample.sms!.segments > SMS_SEGMENT_WARNING && sample.sms!.segments <= SMS_MAX_SEGMENTS) {
      warnings.push({ code: 'sms_many_segments', field: 'body', message: `With the examples it is ${sample.sms!.segments} SMS parts (each is charged); over ${SMS_SEGMENT_WARNING} is worth shortening` });
    }
    if (sample && sample.sms!.encoding === 'UCS-2') {
      warnings.push({ code: 'sms_unicode', field: 'body', message: 'A character outside the GSM alphabet (an emoji, curly quotes, some accents) makes every part hold 70 characters instead of 160' });
    }
  }
  return warnings;
}

/** Hosts of the links in a text: http(s) URLs, and bare host/path words such as bit.ly/x. */
function linkHosts(text: string): Set<string> {
  const hosts = new Set<string>();
  for (const raw of text.split(/[\s<>"'()[\]]+/)) {
    const word = raw.replace(/^[^a-z0-9]+/i, '');
    let host: string | undefined;
    if (/^https?:\/\//i.test(word)) {
      try {
        host = new URL(word).hostname;
      } catch {
        host = undefined;
      }
    } else {
      host = /^((?:[a-z0-9-]+\.)+[a-z]{2,})\//i.exec(word)?.[1];
    }
    if (host) hosts.add(host.toLowerCase().replace(/^www\./, ''));
  }
  return hosts;
}

/** Example values: the declared examples and stand-ins for the standard set. */
export function exampleValues(content: VersionContent): Record<string, string> {
  const values: Record<string, string> = { ...STANDARD_EXAMPLES };
  for (const variable of content.variables) if (variable.example) values[variable.name] = variable.example;
  return values;
}

function sampleRender(content: VersionContent, parsed: ParsedContent): RenderedContent | null {
  if (parsed.problems.length > 0) return null;
  const values = exampleValues(content);
  if (missingVariables(parsed.used, values).length > 0) return null;
  return renderParsed(content, parsed, values);
}

export interface RenderedContent {
  subject: string | null;
  text: string;
  html: string | null;
  sms?: SmsSegments;
  whatsapp?: WhatsAppTemplateMessage;
}

/** Meta Cloud API `template` object of a template message (named parameters). */
export interface WhatsAppTemplateMessage {
  name: string;
  language: { code: string };
  components: Array<{ type: 'header' | 'body'; parameters: Array<{ type: 'text'; parameter_name: string; text: string }> }>;
}

/** en-GB as Meta writes it (en_GB). */
export const metaLocale = (locale: string) => locale.replace('-', '_');

function renderParsed(content: VersionContent, parsed: ParsedContent, values: Record<string, string>, whatsAppName?: string): RenderedContent {
  const subject = parsed.subject ? renderPieces(parsed.subject, values) : null;
  const text = renderPieces(parsed.body, values);
  const html = parsed.html ? renderPieces(parsed.html, values, true) : null;
  const rendered: RenderedContent = { subject, text, html };
  if (content.channel === 'sms') rendered.sms = smsSegments(text);
  if (content.channel === 'whatsapp') {
    const parametersOf = (pieces: Piece[]) => unique(pieces.flatMap((piece) => ('variable' in piece ? [piece.variable] : [])))
      .map((name) => ({ type: 'text' as const, parameter_name: name, text: values[name] }));
    const components: WhatsAppTemplateMessage['components'] = [];
    if (parsed.subject && parametersOf(parsed.subject).length > 0) components.push({ type: 'header', parameters: parametersOf(parsed.subject) });
    if (parametersOf(parsed.body).length > 0) components.push({ type: 'body', parameters: parametersOf(parsed.body) });
    rendered.whatsapp = { name: whatsAppName ?? '(assigned when submitted)', language: { code: metaLocale(content.locale) }, components };
  }
  return rendered;
}

const unique = (names: string[]) => names.filter((name, index) => names.indexOf(name) === index);

export type RenderAttempt =
  | { ok: true; rendered: RenderedContent; used: string[] }
  | { ok: false; reason: 'syntax'; problems: SyntaxProblem[] }
  | { ok: false; reason: 'missing'; missing: string[] };

/** Renders with the given values, or says exactly why it cannot (syntax, or which variables are missing). */
export function renderContent(content: VersionContent, values: Record<string, string | undefined>, whatsAppName?: string): RenderAttempt {
  const parsed = parseContent(content);
  if (parsed.problems.length > 0) return { ok: false, reason: 'syntax', problems: parsed.problems };
  const missing = missingVariables(parsed.used, values);
  if (missing.length > 0) return { ok: false, reason: 'missing', missing };
  return { ok: true, rendered: renderParsed(content, parsed, values as Record<string, string>, whatsAppName), used: parsed.used };
}

/** The component list Meta's template creation takes, with named parameters and their examples. */
export function whatsAppTemplateDefinition(content: VersionContent, name: string, category: 'MARKETING' | 'UTILITY') {
  const parsed = parseContent(content);
  const examples = exampleValues(content);
  const namedExamples = (pieces: Piece[]) => unique(pieces.flatMap((piece) => ('variable' in piece ? [piece.variable] : [])))
    .map((param) => ({ param_name: param, example: examples[param] ?? param }));
  const components: Array<Record<string, unknown>> = [];
  if (content.subject !== null) {
    const header = namedExamples(parsed.subject!);
    components.push({ type: 'HEADER', format: 'TEXT', text: content.subject, ...(header.length ? { example: { header_text_named_params: header } } : {}) });
  }
  const body = namedExamples(parsed.body);
  components.push({ type: 'BODY', text: content.body, ...(body.length ? { example: { body_text_named_params: body } } : {}) });
  return { name, language: metaLocale(content.locale), category, parameter_format: 'NAMED', components };
}
