import type * as AppsServer from '@modelcontextprotocol/ext-apps/server' with { 'resolution-mode': 'import' };
import type { McpUiResourceCsp, McpUiResourceMeta } from '@modelcontextprotocol/ext-apps' with { 'resolution-mode': 'import' };

// The MCP Apps SDK ships only as an ES module while this project compiles to CommonJS:
// Node (>= 20.19) loads it through require(), and Jest transforms it (jest.config.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const apps: typeof AppsServer = require('@modelcontextprotocol/ext-apps/server');

/** What hosts render as an MCP App: HTML with the apps profile. */
export const WIDGET_MIME_TYPE: string = apps.RESOURCE_MIME_TYPE;
/** The flat `_meta` key older hosts read the linked view from, beside `_meta.ui.resourceUri`. */
export const LEGACY_RESOURCE_URI_KEY: string = apps.RESOURCE_URI_META_KEY;
export const WIDGET_URI_PREFIX = 'ui://steward/w/';
export const WIDGET_URI_TEMPLATE = `${WIDGET_URI_PREFIX}{widgetId}`;

export type { McpUiResourceCsp, McpUiResourceMeta };

/**
 * An in-chat widget: one HTML view, served as an MCP resource, that a host shows beside
 * the results of the tools it names. Declared by the module that owns those tools
 * (`widgets` in its definition); its script is a browser file in the module's folder,
 * bundled with everything it imports into the HTML, so the view loads nothing remote.
 */
export interface WidgetDefinition {
  /** `<module>-<kebab-name>`; the resource is `ui://steward/w/<id>`. */
  id: string;
  module: string;
  title: string;
  /** One sentence for resources/list. */
  description: string;
  /** Tools whose results the widget shows; their tools/list entries link to it. Each belongs to the same module. */
  tools: readonly string[];
  /** Absolute path of the browser entry (`.mts`, an ES module bundled for the browser). */
  script: string;
  /**
   * Outside origins the view may reach. None by default, and every Steward widget keeps it
   * so: the data arrives through the host, and button presses go back through the host.
   */
  csp?: McpUiResourceCsp;
}

export function widgetUri(id: string): string {
  return `${WIDGET_URI_PREFIX}${id}`;
}

/** The `_meta.ui` a widget's resource carries in resources/list and resources/read. */
export function widgetResourceMeta(widget: WidgetDefinition): McpUiResourceMeta {
  return {
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], ...widget.csp },
    prefersBorder: true,
  };
}

/** Declares a widget; checks at load time what the type system cannot (its id and tool names). */
export function defineWidget(widget: WidgetDefinition): WidgetDefinition {
  if (!new RegExp(`^${widget.module}-[a-z0-9]+(-[a-z0-9]+)*$`).test(widget.id)) {
    throw new Error(`Widget ${widget.id} must be named ${widget.module}-<kebab-name>`);
  }
  if (widget.tools.length === 0) throw new Error(`Widget ${widget.id} names no tool`);
  for (const tool of widget.tools) {
    if (!tool.startsWith(`${widget.module}_`)) throw new Error(`Widget ${widget.id} of ${widget.module} names ${tool}, a tool of another module`);
  }
  return widget;
}
