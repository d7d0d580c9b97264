import { memoOf } from '../../api/tool-caller';
import { findIntent } from '../../core/intents';
import type { Principal } from '../../core/principal';
import type { ToolPlan } from '../../core/tool-plan';
import { redirectUriMatches, redirectUriProblem } from '../../kernel/oauth/clients';
import { grantScopes, parseScopeRequest, SCOPE_WORDS } from '../../kernel/oauth/scopes';
import { ALL_SCOPES, OPERATOR_SCOPE } from '../../core/scopes';

const principal = (kind: Principal['credentialKind']): Principal => ({
  orgId: 'o', userId: 'u', role: 'staff', scopes: ['people:write'], intent: kind === 'oauth' ? 'people' : null, credentialId: 'c', credentialKind: kind,
});

function plan(kind: Principal['credentialKind'], effect: 'read' | 'write' | 'send', args: Record<string, unknown>): ToolPlan {
  return { tool: 'people_invoke_api_write', module: 'people', args, principal: principal(kind), policy: { effect, meter: null, timeline: false }, argsHash: 'h' };
}

describe('the workflow memo: the keyed caller and the approval dialog\'s actionSummary', () => {
  const identity = { argsHash: 'h', tool: 'people_invoke_api_write', credentialId: 'c', scopes: ['people:write'] };

  it('keeps the actionSummary of a write made with an OAuth token', () => {
    expect(memoOf(plan('oauth', 'write', { actionSummary: 'Add Ada to the welcome team' }), true)).toEqual({ ...identity, actionSummary: 'Add Ada to the welcome team' });
    expect(memoOf(plan('oauth', 'write', { actionSummary: 'Add Ada to the welcome team' }), false)).toEqual({ actionSummary: 'Add Ada to the welcome team' });
    expect(memoOf(plan('oauth', 'send', { actionSummary: 'Text the rota' }), false)?.actionSummary).toBe('Text the rota');
  });

  it('leaves it out for reads, API keys and tools that take none', () => {
    expect(memoOf(plan('oauth', 'read', { actionSummary: 'x' }), true)).toEqual(identity);
    expect(memoOf(plan('api_key', 'write', { actionSummary: 'x' }), true)).toEqual(identity);
    expect(memoOf(plan('oauth', 'write', {}), true)).toEqual(identity);
  });

  it('keeps who made a call only under an idempotency key, the one case a replay can happen', () => {
    expect(memoOf(plan('api_key', 'read', {}), false)).toBeUndefined();
    expect(memoOf(plan('oauth', 'read', { actionSummary: 'x' }), false)).toBeUndefined();
  });
});

describe('intent and scope requests', () => {
  it('reads the intent from intent= or a scope intent:<id>', () => {
    expect(parseScopeRequest([], 'pastoral')).toMatchObject({ ok: true, intent: { id: 'pastoral' }, scopes: [] });
    expect(parseScopeRequest(['intent:giving', 'people:read', 'offline_access'], undefined)).toMatchObject({ ok: true, intent: { id: 'giving' }, scopes: ['people:read'] });
    expect(parseScopeRequest(['people:read'], undefined)).toMatchObject({ ok: true, intent: null });
    expect(parseScopeRequest(['intent:pastoral'], 'pastoral')).toMatchObject({ ok: true, intent: { id: 'pastoral' } });
  });

  it('refuses unknown intents, unknown scopes and two intents', () => {
    expect(parseScopeRequest([], 'teleport')).toMatchObject({ ok: false, error: 'invalid_scope', message: expect.stringContaining('Unknown intent "teleport"') });
    expect(parseScopeRequest(['people:fly'], 'people')).toMatchObject({ ok: false, error: 'invalid_scope', message: expect.stringContaining('people:fly') });
    expect(parseScopeRequest(['intent:giving'], 'people')).toMatchObject({ ok: false, error: 'invalid_request' });
  });

  it('grants the intent ∩ the role, and never safeguarding to a volunteer', () => {
    const pastoral = findIntent('pastoral')!;
    expect(grantScopes(pastoral, 'volunteer', true)).toEqual({
      granted: ['platform:read', 'platform:write', 'people:read', 'people:write', 'community:read', 'community:write'],
      withheld: ['people:safeguarding'],
    });
    expect(grantScopes(pastoral, 'staff', true).granted).toContain('people:safeguarding');
    expect(grantScopes(pastoral, 'admin', false).withheld).toEqual(['people:safeguarding']);
    expect(grantScopes(findIntent('platform')!, 'owner', true).granted).toEqual([...ALL_SCOPES]);
    expect(grantScopes(findIntent('platform')!, 'staff', true).withheld).toEqual(['audit:read', 'audit:export']);
    expect(grantScopes(pastoral, 'staff', false, ['people:read']).granted).toEqual(['people:read']);
  });

  it('has plain words for every scope', () => {
    expect(Object.keys(SCOPE_WORDS).sort()).toEqual([...ALL_SCOPES, OPERATOR_SCOPE].sort());
  });
});

describe('redirect URIs', () => {
  it('registers https and loopback http only', () => {
    expect(redirectUriProblem('https://assistant.example/cb')).toBeNull();
    expect(redirectUriProblem('http://127.0.0.1:8080/cb')).toBeNull();
    expect(redirectUriProblem('http://[::1]/cb')).toBeNull();
    expect(redirectUriProblem('http://localhost/cb')).toBeNull();
    expect(redirectUriProblem('http://assistant.example/cb')).toContain('must use https');
    expect(redirectUriProblem('javascript:alert(1)')).toContain('must use https');
    expect(redirectUriProblem('https://assistant.example/cb#frag')).toContain('fragment');
    expect(redirectUriProblem('https://user:pw@assistant.example/cb')).toContain('credentials');
    expect(redirectUriProblem('/relative')).toContain('not an absolute URL');
  });

  it('matches exactly, except for a loopback port', () => {
    const registered = 'https://assistant.example/cb';
    expect(redirectUriMatches(registered, registered)).toBe(true);
    for (const other of [`${registered}/`, 'https://assistant.example/CB', `${registered}?x=1`, 'https://ASSISTANT.example/cb', 'https://assistant.example:443/cb']) {
      expect(redirectUriMatches(other, registered)).toBe(false);
    }
    expect(redirectUriMatches('http://127.0.0.1:5000/cb', 'http://127.0.0.1:4000/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:4000/cb')).toBe(true);
    expect(redirectUriMatches('http://localhost:5000/cb', 'http://127.0.0.1:4000/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:5000/cb/', 'http://127.0.0.1:4000/cb')).toBe(false);
  });
});
