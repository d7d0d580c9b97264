import { redirectLog } from '../../core/log';
import { allTools } from '../../modules/catalogue';
import { meaningOf } from '../../modules/platform/search-meaning';
import { ToolSearchIndex } from '../../modules/platform/tool-search';

// The model's package fails to load (a broken install, a platform it does not run on).
jest.mock('@energetic-ai/embeddings', () => {
  throw new Error('cannot load the model for Sam Smith');
});

describe('search when the sentence model cannot load', () => {
  it('answers by words alone and logs once, without the error\'s text', async () => {
    const lines: string[] = [];
    const restore = redirectLog((line) => lines.push(line));
    try {
      expect(await meaningOf('record that Sam is Lucy\'s dad')).toBeUndefined();
      expect(await meaningOf('who is on the flowers')).toBeUndefined();
    } finally {
      restore();
    }
    const logged = lines.map((line) => JSON.parse(line) as { event: string });
    expect(logged.filter((line) => line.event === 'tool_search.meaning_unavailable')).toHaveLength(1);
    expect(lines.join('\n')).not.toContain('Sam Smith');
    const tools = allTools();
    const index = new ToolSearchIndex(tools);
    const everything = new Set(tools.map((tool) => tool.name));
    expect(index.search('create a new contact', everything, 3, await meaningOf('create a new contact'))[0]).toBe('people_create_contact');
  });
});
