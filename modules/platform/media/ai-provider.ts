import { StewardError } from '../../../core/errors';

/**
 * The AI media tools' provider: any service speaking the widely used OpenAI-style HTTP API
 * (`/images/generations`, `/chat/completions` with image input, `/embeddings`), at the base URL
 * MEDIA_AI_API_URL (for example https://api.openai.com/v1) with MEDIA_AI_API_KEY. The base URL is
 * the operator's choice, so it is not vetted like a caller's URL is.
 */
export interface AiSettings {
  baseUrl: string;
  apiKey?: string;
  imageModel: string;
  visionModel: string;
  embeddingModel: string;
}

export const AI_URL_SETTING = 'MEDIA_AI_API_URL';
const TIMEOUT_MS = 60_000;
/** The largest generated image accepted back from the provider. */
const MAX_GENERATED_BYTES = 20 * 1024 * 1024;

export function aiSettings(env: NodeJS.ProcessEnv = process.env): AiSettings {
  const baseUrl = env[AI_URL_SETTING]?.trim();
  if (!baseUrl) {
    throw new StewardError('not_configured', `AI media tools are not configured on this server: set ${AI_URL_SETTING} (and MEDIA_AI_API_KEY) to an OpenAI-compatible API`, {
      hint: 'Ask the server\'s operator to configure an AI provider; the rest of the Media Library works without one.',
      details: { reason: 'not_configured', setting: AI_URL_SETTING },
    });
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: env.MEDIA_AI_API_KEY || undefined,
    imageModel: env.MEDIA_AI_IMAGE_MODEL || 'gpt-image-1',
    visionModel: env.MEDIA_AI_VISION_MODEL || 'gpt-4o-mini',
    embeddingModel: env.MEDIA_AI_EMBEDDING_MODEL || 'text-embedding-3-small',
  };
}

function providerError(what: string, status?: number): StewardError {
  return new StewardError('unavailable', `The AI provider could not ${what}${status ? ` (HTTP ${status})` : ''}`, {
    hint: 'Try again shortly; if it keeps failing, the operator should check the AI provider settings.',
  });
}

async function post<T>(settings: AiSettings, path: string, body: unknown, what: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw providerError(what);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw providerError(what, response.status);
  }
  try {
    return (await response.json()) as T;
  } catch {
    throw providerError(what);
  }
}

/** One generated image's bytes. */
export async function generateImage(settings: AiSettings, prompt: string, size: string): Promise<{ bytes: Buffer; revisedPrompt: string | null }> {
  const answer = await post<{ data?: Array<{ b64_json?: string; revised_prompt?: string }> }>(settings, '/images/generations', {
    model: settings.imageModel, prompt, size, n: 1, response_format: 'b64_json',
  }, 'generate the image');
  const first = answer.data?.[0];
  if (!first?.b64_json || first.b64_json.length > (MAX_GENERATED_BYTES * 4) / 3 + 4) throw providerError('generate the image');
  return { bytes: Buffer.from(first.b64_json, 'base64'), revisedPrompt: first.revised_prompt ?? null };
}

export interface ImageAnalysis {
  description: string;
  altText: string;
  labels: string[];
}

/** A description, alt text and labels for an image, from the provider's vision model. */
export async function analyzeImage(settings: AiSettings, image: { bytes: Buffer; mimeType: string }, focus?: string): Promise<ImageAnalysis> {
  const instructions = [
    'Describe this image for a church or charity media library.',
    'Answer with JSON only: {"description": string (2-3 sentences), "altText": string (under 125 characters, for screen readers), "labels": string[] (up to 8 short lowercase keywords)}.',
    focus ? `Pay attention to: ${focus}` : '',
  ].filter(Boolean).join(' ');
  const answer = await post<{ choices?: Array<{ message?: { content?: string } }> }>(settings, '/chat/completions', {
    model: settings.visionModel,
    response_format: { type: 'json_object' },
    messages: [{
      role: 'user',
      content: [
        { type: 'text', text: instructions },
        { type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.bytes.toString('base64')}` } },
      ],
    }],
  }, 'analyse the image');
  const content = answer.choices?.[0]?.message?.content ?? '';
  let parsed: Partial<ImageAnalysis>;
  try {
    parsed = JSON.parse(content.replace(/^```(?:json)?\s*|\s*```$/g, '')) as Partial<ImageAnalysis>;
  } catch {
    throw providerError('analyse the image (its answer was not the JSON asked for)');
  }
  const text = (value: unknown, limit: number) => (typeof value === 'string' ? value.trim().slice(0, limit) : '');
  return {
    description: text(parsed.description, 2000),
    altText: text(parsed.altText, 250),
    labels: Array.isArray(parsed.labels) ? parsed.labels.map((label) => text(label, 60).toLowerCase()).filter(Boolean).slice(0, 8) : [],
  };
}

/** One embedding vector per input text, in order. */
export async function embed(settings: AiSettings, texts: readonly string[]): Promise<number[][]> {
  const answer = await post<{ data?: Array<{ embedding?: number[]; index?: number }> }>(settings, '/embeddings', {
    model: settings.embeddingModel, input: texts,
  }, 'embed the search');
  const data = answer.data ?? [];
  if (data.length !== texts.length) throw providerError('embed the search');
  const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  return ordered.map((item) => {
    if (!Array.isArray(item.embedding) || !item.embedding.every((n) => typeof n === 'number')) throw providerError('embed the search');
    return item.embedding;
  });
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/**
 * A text answer as JSON: the instructions as the system message, the material as the user's, the
 * provider asked for a JSON object (model MEDIA_AI_TEXT_MODEL, else the vision model). What it
 * answers is the caller's to check field by field; an answer that is not JSON is the provider's failure.
 */
export async function chatJson(settings: AiSettings, instructions: string, material: string, what: string): Promise<{ model: string; answer: Record<string, unknown> }> {
  const model = process.env.MEDIA_AI_TEXT_MODEL || settings.visionModel;
  const reply = await post<{ choices?: Array<{ message?: { content?: string } }> }>(settings, '/chat/completions', {
    model, response_format: { type: 'json_object' },
    messages: [{ role: 'system', content: instructions }, { role: 'user', content: material }],
  }, what);
  try {
    const answer = JSON.parse((reply.choices?.[0]?.message?.content ?? '').replace(/^```(?:json)?\s*|\s*```$/g, '')) as unknown;
    if (answer && typeof answer === 'object' && !Array.isArray(answer)) return { model, answer: answer as Record<string, unknown> };
  } catch {
    // Reported below as the provider's failure.
  }
  throw providerError(`${what} (its answer was not the JSON asked for)`);
}
