import { INTENTS } from '../../core/intents';
import { endpointsOf } from './documents';

/**
 * Copy-paste set-up for the MCP clients people use, with this service's own address filled in.
 * One source for /connect and the README (test/e2e/connect-page.test.ts checks the README carries
 * these, made for the default local address).
 */
export function connectSnippets(base: string) {
  const { mcp, tools, invoke } = endpointsOf(base);
  return {
    claudeCode: `claude mcp add --transport http steward ${mcp} \\\n  --header "Authorization: Bearer $STEWARD_API_KEY"`,
    claudeCodeOAuth: `claude mcp add --transport http steward ${mcp}`,
    claudeDesktop: JSON.stringify({
      mcpServers: {
        steward: {
          command: 'npx',
          args: ['-y', 'mcp-remote', mcp, '--header', 'Authorization:${STEWARD_AUTH}'],
          env: { STEWARD_AUTH: 'Bearer sk_live_…' },
        },
      },
    }, null, 2),
    cursor: JSON.stringify({ mcpServers: { steward: { url: mcp, headers: { Authorization: 'Bearer sk_live_…' } } } }, null, 2),
    vscode: JSON.stringify({
      inputs: [{ type: 'promptString', id: 'steward-api-key', description: 'Steward API key', password: true }],
      servers: { steward: { type: 'http', url: mcp, headers: { Authorization: 'Bearer ${input:steward-api-key}' } } },
    }, null, 2),
    openai: `# pip install openai requests; export STEWARD_API_KEY=sk_live_… OPENAI_API_KEY=…
import json, os, requests
from openai import OpenAI

steward = {"Authorization": f"Bearer {os.environ['STEWARD_API_KEY']}"}
tools = requests.get("${tools}", headers=steward).json()["tools"]
client = OpenAI()
messages = [{"role": "user", "content": "Who are our newest contacts?"}]
while True:
    reply = client.chat.completions.create(model=os.environ.get("OPENAI_MODEL", "gpt-4.1"), messages=messages, tools=tools).choices[0].message
    messages.append(reply)
    if not reply.tool_calls:
        break
    for call in reply.tool_calls:
        result = requests.post("${invoke}", headers=steward,
                               json={"tool": call.function.name, "arguments": json.loads(call.function.arguments)}).json()
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
print(reply.content)`,
    publicUrl: `# a tunnel (no domain needed):          cloudflared tunnel --url http://127.0.0.1:3000
# or a reverse proxy with your own domain: caddy reverse-proxy --from steward.example.org --to 127.0.0.1:3000
PUBLIC_URL=https://steward.example.org npm start     # or: PUBLIC_URL=… npm run api`,
    inspector: `npx @modelcontextprotocol/inspector --cli ${mcp} --transport http --method tools/list --header "Authorization: Bearer $STEWARD_API_KEY"`,
  };
}

export function connectPageData(base: string) {
  const url = new URL(base);
  const loopbackOrPrivate = /^(localhost|127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|\[::1\]|0\.0\.0\.0)/.test(url.hostname) || !url.hostname.includes('.');
  return {
    base, mcp: endpointsOf(base).mcp, snippets: connectSnippets(base),
    publicHttps: url.protocol === 'https:' && !loopbackOrPrivate,
    intents: INTENTS.slice(0, 4).map((intent) => intent.id),
  };
}
