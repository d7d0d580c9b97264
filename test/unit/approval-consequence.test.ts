import { consequenceOf } from '../../api/dashboard/consequence';
import { allTools, findTool } from '../../modules/catalogue';

const titleOf = (name: string) => findTool(name)?.title;
const IDENTIFIER = /\b[a-z]+(?:_[a-z0-9]+)+\b/;

describe('what an approval card says approving does', () => {
  it('keeps what the tool does and drops what steers a model', () => {
    const tool = {
      title: 'Reserve tickets',
      description: 'Puts places in a cart for a buyer (or ttlSeconds), then returns them. Refused when they are not free. Use people_get_contact first. Nothing else changes.',
    };
    expect(consequenceOf(tool, titleOf)).toBe('Puts places in a cart for a buyer, then returns them. Refused when they are not free.');
  });

  it('names another tool by its title rather than its identifier', () => {
    const tool = { title: 'Unschedule', description: 'Removes a scheduled person (by the id people_get_contact gives), as people_get_contact shows.' };
    const title = findTool('people_get_contact')!.title;
    expect(consequenceOf(tool, titleOf)).toBe(`Removes a scheduled person (by the id “${title}” gives), as “${title}” shows.`);
  });

  it('falls back to the title when even the first sentence is for a model', () => {
    expect(consequenceOf({ title: 'Run a tool', description: 'Pass toolName and arguments.' }, titleOf)).toBe('Run a tool, with exactly these details.');
  });

  it('never shows a person an identifier, for any write tool in the catalogue', () => {
    const leaking = allTools().filter((tool) => tool.effect !== 'read').map((tool) => consequenceOf(tool, titleOf)).filter((text) => IDENTIFIER.test(text));
    expect(leaking).toEqual([]);
  });
});
