import fs from 'node:fs';
import path from 'node:path';
import { escapeHtml } from '../../core/html';
import { PROJECT_ROOT } from '../../db/config';
import { renderTemplateString } from '../../api/pages/render';

describe('one HTML-escaping helper', () => {
  it('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;');
    expect(escapeHtml(undefined)).toBe('');
    expect(escapeHtml(42)).toBe('42');
  });

  it('is the only one in the source tree', () => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        if (['node_modules', 'dist', '.data', '.venv', '.git', 'conformance'].includes(entry.name)) continue;
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file !== __filename && /\.(ts|mts)$/.test(entry.name) && /function escapeHtml\b|escapeHtml\s*=\s*\(/.test(fs.readFileSync(file, 'utf8'))) found.push(path.relative(PROJECT_ROOT, file));
      }
    };
    walk(PROJECT_ROOT);
    expect(found).toEqual(['core/html.ts']);
  });

  it('the page templates escape with it', () => {
    const html = renderTemplateString('<p title="<%= it.name %>"><%= it.name %></p>', { name: `<script>alert('x')</script>` });
    expect(html).toBe(`<p title="${escapeHtml(`<script>alert('x')</script>`)}">${escapeHtml(`<script>alert('x')</script>`)}</p>`);
    expect(html).toContain('&#39;');
  });
});
