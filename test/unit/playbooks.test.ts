import { allPlaybooks, findTool } from '../../modules/catalogue';

/** A playbook can never send an agent to a tool that does not exist or that its own scopes cannot reach. */
describe('playbooks', () => {
  const playbooks = allPlaybooks();

  it('exist, with unique kebab-case names', () => {
    expect(playbooks.length).toBeGreaterThan(0);
    expect(new Set(playbooks.map((playbook) => playbook.name)).size).toBe(playbooks.length);
  });

  it.each(playbooks.map((playbook) => [playbook.name, playbook] as const))('%s names only tools that exist and its scopes reach, and mentions each', (_name, playbook) => {
    const problems: string[] = [];
    const args = Object.fromEntries((playbook.arguments ?? []).map((argument) => [argument.name, `<${argument.name}>`]));
    const text = playbook.steps(args);
    for (const name of playbook.tools) {
      const tool = findTool(name);
      if (!tool) problems.push(`${name} does not exist`);
      else if (!playbook.scopes.includes(tool.scope)) problems.push(`${name} needs ${tool.scope}, which the playbook does not declare`);
      if (!text.includes(name)) problems.push(`${name} is declared but the steps never name it`);
    }
    // Every tool name the steps mention must be declared, so the declared list is the whole truth.
    for (const mentioned of text.match(/\b[a-z]+_[a-z_]+\b/g) ?? []) {
      if (findTool(mentioned) && !playbook.tools.includes(mentioned)) problems.push(`the steps name ${mentioned}, which is not declared`);
    }
    for (const argument of playbook.arguments ?? []) {
      if (argument.required && !text.includes(`<${argument.name}>`)) problems.push(`required argument ${argument.name} is never used`);
    }
    expect(problems).toEqual([]);
  });
});
