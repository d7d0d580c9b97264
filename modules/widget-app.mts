/**
 * The view half of the MCP Apps protocol, as small as a widget needs it (bundled into each widget,
 * never run by Node). The SDK's `App` brings the whole MCP client and its schema library into the
 * page (over 600 KB a widget); a Steward widget only has to say who it is, take the tool result the
 * host delivers, call tools back through the host and report its height. Messages are JSON-RPC 2.0
 * over `postMessage` with the parent window, exactly as the SDK's `App` sends them
 * (test/unit/widget-app.test.ts holds the protocol version to the SDK's own, and the browser tests
 * run every widget against the SDK's host side, `AppBridge`).
 */

/** The MCP Apps protocol version this view speaks (the SDK's `LATEST_PROTOCOL_VERSION`). */
export const APPS_PROTOCOL_VERSION = '2026-01-26';

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface ToolResultLike {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: ReadonlyArray<{ type: string; text?: string }>;
}

export interface AppInfo {
  name: string;
  version: string;
}

/** A connection to the host that shows this view. */
export class WidgetApp {
  /** Called with each tool result the host delivers. */
  ontoolresult: ((result: ToolResultLike) => void) | undefined;
  private nextId = 1;
  private readonly pending = new Map<number | string, { resolve(value: unknown): void; reject(error: Error): void }>();
  private readonly host: Window;

  constructor(private readonly info: AppInfo, host: Window = window.parent) {
    this.host = host;
    window.addEventListener('message', (event) => {
      if (event.source !== this.host) return;
      const message = event.data as JsonRpcMessage | null;
      if (!message || typeof message !== 'object' || message.jsonrpc !== '2.0') return;
      this.receive(message);
    });
  }

  /** The handshake: `ui/initialize`, then `ui/notifications/initialized`, then size reports. */
  async connect(): Promise<void> {
    await this.request('ui/initialize', { appCapabilities: {}, appInfo: this.info, protocolVersion: APPS_PROTOCOL_VERSION });
    this.notify('ui/notifications/initialized');
    this.reportSize();
  }

  /** A tools/call through the host; the server's answer, or the host's error as a rejection. */
  callServerTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<ToolResultLike> {
    return this.request('tools/call', params) as Promise<ToolResultLike>;
  }

  private send(message: Omit<JsonRpcMessage, 'jsonrpc'>): void {
    this.host.postMessage({ jsonrpc: '2.0', ...message }, '*');
  }

  private notify(method: string, params?: Record<string, unknown>): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  private request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ id, method, params });
    });
  }

  private receive(message: JsonRpcMessage): void {
    if (message.method === undefined) {
      // A response to one of our requests.
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id!);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
      return;
    }
    if (message.id !== undefined) {
      // A request from the host: liveness and teardown are answered; this view offers nothing else.
      if (message.method === 'ping' || message.method === 'ui/resource-teardown') this.send({ id: message.id, result: {} });
      else this.send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
      return;
    }
    if (message.method === 'ui/notifications/tool-result') this.ontoolresult?.((message.params ?? {}) as ToolResultLike);
  }

  /** Tells the host the document's size whenever it changes, so the frame fits the content. */
  private reportSize(): void {
    let scheduled = false;
    let width = 0;
    let height = 0;
    const measure = () => {
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(() => {
        scheduled = false;
        const root = document.documentElement;
        const before = root.style.height;
        root.style.height = 'max-content';
        const nextHeight = Math.ceil(root.getBoundingClientRect().height);
        root.style.height = before;
        const nextWidth = Math.ceil(window.innerWidth);
        if (nextWidth === width && nextHeight === height) return;
        width = nextWidth;
        height = nextHeight;
        this.notify('ui/notifications/size-changed', { width, height });
      });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.documentElement);
    observer.observe(document.body);
  }
}
