import { startStreamingSandbox, streamingSandboxConfigFromEnv, type StreamingSandbox } from './server';

/**
 * `npm start`'s local streaming provider: unless STREAMING_API_URL names a real one (or
 * STREAMING_SANDBOX=off), the YouTube Live-shaped sandbox starts on STREAMING_SANDBOX_PORT (default:
 * a free port) and this process's environment points the live module's adapter at it.
 */
export async function startLocalStreamingSandbox(env: NodeJS.ProcessEnv = process.env): Promise<StreamingSandbox | null> {
  if (env.STREAMING_SANDBOX === 'off' || env.STREAMING_API_URL) return null;
  const sandbox = await startStreamingSandbox(streamingSandboxConfigFromEnv(env));
  for (const [key, value] of Object.entries(sandbox.env())) env[key] ??= value;
  return sandbox;
}
