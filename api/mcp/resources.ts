import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListResourceTemplatesRequestSchema, ListResourcesRequestSchema, McpError, ReadResourceRequestSchema, type ReadResourceResult, type Resource } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../core/principal';
import { mayUseTool } from '../../modules/tool-catalogue';
import { allWidgets, findTool } from '../../modules/catalogue';
import { WIDGET_MIME_TYPE, WIDGET_URI_TEMPLATE, widgetResourceMeta, widgetUri, type WidgetDefinition } from '../../modules/widget';
import { widgetHtml } from '../../modules/widget-html';

/** MCP's code for a resource that does not exist (or that this credential may not see). */
const RESOURCE_NOT_FOUND = -32002;

/** A widget is offered to a credential that may call one of the tools it shows, as tools/list offers those tools. */
function permittedWidgets(principal: Principal): WidgetDefinition[] {
  return allWidgets().filter((widget) => widget.tools.some((name) => {
    const tool = findTool(name);
    return tool !== undefined && mayUseTool(principal, tool);
  }));
}

function resourceOf(widget: WidgetDefinition): Resource {
  return {
    uri: widgetUri(widget.id), name: widget.id, title: widget.title, description: widget.description,
    mimeType: WIDGET_MIME_TYPE, _meta: { ui: widgetResourceMeta(widget) },
  };
}

async function readWidget(principal: Principal, uri: string): Promise<ReadResourceResult> {
  const widget = permittedWidgets(principal).find((candidate) => widgetUri(candidate.id) === uri);
  if (!widget) throw new McpError(RESOURCE_NOT_FOUND, `There is no resource ${uri}`, { uri });
  try {
    const text = await widgetHtml(allWidgets(), widget.id);
    // Hosts read the policy from the content item first, the list entry only as a fallback.
    return { contents: [{ uri, mimeType: WIDGET_MIME_TYPE, text, _meta: { ui: widgetResourceMeta(widget) } }] };
  } catch (error) {
    throw new McpError(ErrorCode.InternalError, `The widget ${widget.id} could not be built`, { message: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * resources/list, resources/templates/list and resources/read: the in-chat widgets (MCP Apps)
 * the credential may see, each an HTML page whose tools link to it with `_meta.ui.resourceUri`.
 */
export function serveWidgets(server: Server, principal: Principal): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: permittedWidgets(principal).map(resourceOf) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{
      uriTemplate: WIDGET_URI_TEMPLATE, name: 'widget', title: 'Steward widget', mimeType: WIDGET_MIME_TYPE,
      description: 'An in-chat view of a tool\'s result; each linking tool names its widget in _meta.ui.resourceUri.',
    }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readWidget(principal, request.params.uri));
}
