import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { registerModule } from '../../modules';
import { allTools, allWidgets, findTool, widgetUriOf } from '../../modules/catalogue';
import { defineModule } from '../../modules/module';
import { mcpToolOf } from '../../modules/surfaces';
import { WIDGET_MIME_TYPE, defineWidget, widgetUri, type WidgetDefinition } from '../../modules/widget';
import { widgetHtml } from '../../modules/widget-html';

const base: WidgetDefinition = { id: 'people-thing', module: 'people', title: 'T', description: 'D', tools: ['people_get_contact'], script: '/nowhere.mts' };
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

describe('widget declarations', () => {
  it('uses the MCP Apps SDK\'s mimeType', () => {
    expect(WIDGET_MIME_TYPE).toBe('text/html;profile=mcp-app');
  });

  it('refuses an id outside the module\'s names, a tool of another module, and no tool at all', () => {
    expect(() => defineWidget({ ...base, id: 'contact-card' })).toThrow('must be named people-<kebab-name>');
    expect(() => defineWidget({ ...base, id: 'people-Contact_Card' })).toThrow('must be named');
    expect(() => defineWidget({ ...base, tools: ['platform_usage'] })).toThrow('a tool of another module');
    expect(() => defineWidget({ ...base, tools: [] })).toThrow('names no tool');
  });

  it('refuses a module declaring another module\'s widget', () => {
    expect(() => defineModule({ name: 'giving', title: 'G', description: 'D', tools: [], migrations: [], scopes: [], routes: [], widgets: [defineWidget(base)] }))
      .toThrow('says module people, but is declared by giving');
  });

  it('every registered widget shows existing tools of its own module, from a script in its module\'s folder', () => {
    expect(allWidgets().length).toBeGreaterThanOrEqual(5);
    for (const widget of allWidgets()) {
      expect(widget.script).toContain(`/modules/${widget.module}/widgets/`);
      expect(fs.existsSync(widget.script)).toBe(true);
      for (const name of widget.tools) {
        expect(findTool(name)?.module).toBe(widget.module);
        expect(widgetUriOf(name)).toBe(widgetUri(widget.id));
        expect(mcpToolOf(findTool(name)!)._meta).toEqual({ ui: { resourceUri: widgetUri(widget.id) }, 'ui/resourceUri': widgetUri(widget.id) });
      }
    }
    // Tools without a widget carry no _meta at all.
    expect(allTools().filter((tool) => mcpToolOf(tool)._meta !== undefined)).toHaveLength(allWidgets().flatMap((widget) => widget.tools).length);
  });
});

describe('widget pages', () => {
  it('allow exactly their own inline script and style, and escape their title', async () => {
    const widgets = [...allWidgets(), { ...allWidgets()[0], id: 'people-escaped', title: 'A <b>"title"</b> & more' }];
    for (const widget of widgets) {
      const page = await widgetHtml(widgets, widget.id);
      const script = /<script>([\s\S]*)<\/script>/.exec(page)![1];
      const style = /<style>([\s\S]*)<\/style>/.exec(page)![1];
      const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(page)![1].replace(/&#39;/g, '\'');
      expect(policy).toContain(`script-src 'sha256-${sha256(script)}'`);
      expect(policy).toContain(`style-src 'sha256-${sha256(style)}'`);
      expect(policy).toContain('default-src \'none\'');
    }
    expect(await widgetHtml(widgets, 'people-escaped')).toContain('<title>A &lt;b&gt;&quot;title&quot;&lt;/b&gt; &amp; more</title>');
    await expect(widgetHtml(widgets, 'people-none')).rejects.toThrow('There is no widget people-none');
  }, 60_000);
});

// Last: the catalogue refuses to build from here on, as it would refuse to start.
describe('a widget naming a tool that does not exist', () => {
  it('stops the catalogue from building', () => {
    registerModule(defineModule({
      name: 'widgetdemo', title: 'W', description: 'D', tools: [], migrations: [], scopes: [], routes: [],
      widgets: [defineWidget({ ...base, id: 'widgetdemo-card', module: 'widgetdemo', tools: ['widgetdemo_get_card'] })],
    }));
    expect(() => allTools()).toThrow('Widget widgetdemo-card names tool widgetdemo_get_card, which does not exist');
  });
});
