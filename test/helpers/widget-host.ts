import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { Harness, type TestOrg } from './harness';
import { CHROMIUM } from './oauth';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';

/** A tools/call a widget sent through the host. */
export interface ForwardedCall {
  name: string;
  arguments?: Record<string, unknown>;
}

let hostScript: Promise<string> | undefined;

/** The host page's script: widget-host-page.mts with the SDK's AppBridge, bundled once per test file. */
function hostScriptText(): Promise<string> {
  hostScript ??= build({
    entryPoints: [path.join(__dirname, 'widget-host-page.mts')], bundle: true, write: false,
    format: 'iife', platform: 'browser', target: 'es2022', logLevel: 'silent',
  }).then((result) => result.outputFiles[0].text);
  return hostScript;
}

/**
 * A minimal MCP Apps host in headless Chromium, driven as a chat client would: call a tool over
 * MCP, follow its tools/list entry's `_meta.ui.resourceUri`, read that resource, render it and
 * deliver the result. A widget's tools/call goes to the real server through the same client.
 */
export class WidgetHost {
  readonly calls: ForwardedCall[] = [];
  /** Console errors of the host page and the widget (a script the policy blocked shows here). */
  readonly errors: string[] = [];
  private links: Map<string, string> | undefined;

  private constructor(readonly page: Page, private readonly mcp: McpClient) {}

  static async open(browser: Browser, mcp: McpClient): Promise<WidgetHost> {
    const page = await browser.newPage();
    const host = new WidgetHost(page, mcp);
    page.on('console', (message) => { if (message.type() === 'error') host.errors.push(message.text()); });
    page.on('pageerror', (error) => host.errors.push(error.message));
    await page.exposeFunction('stewardCallTool', async (params: ForwardedCall) => {
      // The widget's own _meta (its progress token) is for the host, not the server.
      const call = { name: params.name, arguments: params.arguments ?? {} };
      host.calls.push(call);
      return mcp.callTool(call);
    });
    await page.setContent(`<!doctype html><html><head><title>Steward widget host</title></head><body><script>${await hostScriptText()}</script></body></html>`);
    return host;
  }

  async close(): Promise<void> {
    await this.page.close();
  }

  /** The widget URI a tool's tools/list entry links to. */
  async widgetUriOf(tool: string): Promise<string | undefined> {
    if (!this.links) {
      const { tools } = await this.mcp.listTools();
      this.links = new Map(tools.flatMap((entry) => {
        const uri = (entry._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
        return uri ? [[entry.name, uri] as const] : [];
      }));
    }
    return this.links.get(tool);
  }

  /** Calls the tool for real and shows its result in the widget it links to; returns the widget's frame and the result. */
  async callAndShow(tool: string, args: Record<string, unknown>): Promise<{ frame: FrameLocator; result: any }> {
    const uri = await this.widgetUriOf(tool);
    if (!uri) throw new Error(`${tool} links no widget`);
    const { contents } = await this.mcp.readResource({ uri });
    const [content] = contents as Array<{ text: string; _meta?: { ui?: { csp?: unknown } } }>;
    const result = await this.mcp.callTool({ name: tool, arguments: args });
    await this.page.evaluate((shown) => window.stewardShow(shown as never), { html: content.text, toolName: tool, args, result, csp: content._meta?.ui?.csp ?? {} });
    const frame = this.page.frameLocator('#widget');
    await frame.locator('#root[data-state="ready"], #root[data-state="error"]').waitFor();
    return { frame, result };
  }
}

/** User text that would become markup, or run, if a widget parsed what it shows as HTML. */
export const HOSTILE_TEXT = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b> & "quoted"';

/** What a widget browser suite works with: its organisation, an MCP client with every toolset, and the host page. */
export interface WidgetSuite {
  harness: Harness;
  org: TestOrg;
  mcp: McpClient;
  host: WidgetHost;
  close(): Promise<void>;
}

/** A suite's stack, organisation, MCP client and headless-Chromium widget host; close() ends them in reverse. */
export async function openWidgetSuite(orgName = 'Widget Parish'): Promise<WidgetSuite> {
  const harness = await Harness.start();
  const org = await harness.createOrg({ name: orgName });
  const mcp = await harness.mcpClient(org.apiKey, '?toolsets=all');
  const browser = await chromium.launch(CHROMIUM);
  const host = await WidgetHost.open(browser, mcp);
  return {
    harness, org, mcp, host,
    close: async () => {
      await host.close();
      await browser.close();
      await mcp.close();
      await harness.close();
    },
  };
}
