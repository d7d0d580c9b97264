/**
 * Browser side of the test host for in-chat widgets (bundled by widget-host.ts): the host half of
 * the MCP Apps protocol through the SDK's AppBridge. It shows a widget's HTML in a sandboxed
 * iframe, hands it the tool's input and result once it has initialised, and passes its
 * tools/call requests to the test, which sends them to the real server.
 */
import { AppBridge, PostMessageTransport, type McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';

interface Shown {
  html: string;
  toolName: string;
  args: Record<string, unknown>;
  result: { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean };
  csp: McpUiResourceCsp;
}

declare global {
  interface Window {
    stewardCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<never>;
    stewardShow(shown: Shown): Promise<void>;
  }
}

window.stewardShow = async (shown) => {
  document.getElementById('widget')?.remove();
  const iframe = document.createElement('iframe');
  iframe.id = 'widget';
  // As chat hosts do: scripts run, but in an opaque origin, with no access to this page.
  iframe.sandbox.add('allow-scripts');
  iframe.style.cssText = 'width: 640px; height: 900px; border: 1px solid #ccc';
  document.body.appendChild(iframe);
  const bridge = new AppBridge(null, { name: 'steward-test-host', version: '1.0.0' }, { serverTools: {}, sandbox: { csp: shown.csp } }, {
    hostContext: { theme: 'light', displayMode: 'inline', toolInfo: { tool: { name: shown.toolName, inputSchema: { type: 'object' } } } },
  });
  bridge.oncalltool = async (params) => window.stewardCallTool(params);
  const initialized = new Promise<void>((resolve) => bridge.addEventListener('initialized', () => resolve()));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = shown.html;
  await initialized;
  await bridge.sendToolInput({ arguments: shown.args });
  await bridge.sendToolResult(shown.result as never);
};
