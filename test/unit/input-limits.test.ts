import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { boundedBody, toFailure } from '../../modules/activity-kit';
import { ToolCaller } from '../../api/tool-caller';
import { StewardError, httpStatusFor, quoteInput } from '../../core/errors';
import { unstorableTextIssues } from '../../core/input-text';
import { MAX_ARGS_BYTES, jsonFits, utf8Length } from '../../core/payload-limits';
import type { Principal } from '../../core/principal';
import { ALL_SCOPES } from '../../core/scopes';
import { MAX_IMPORT_CHARS } from '../../modules/people/import-export';

/** A Temporal client that fails the test if anything tries to start a workflow. */
function refusingClient(): { client: Client; starts: () => number } {
  let starts = 0;
  const client = {
    workflow: {
      start: async () => {
        starts += 1;
        throw new Error('no workflow may start in this test');
      },
    },
  } as unknown as Client;
  return { client, starts: () => starts };
}

const principal: Principal = {
  orgId: randomUUID(), userId: randomUUID(), role: 'owner', scopes: [...ALL_SCOPES], intent: null, credentialId: randomUUID(), credentialKind: 'api_key',
};

async function refusal(promise: Promise<unknown>): Promise<StewardError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StewardError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}

describe('arguments too large for a workflow', () => {
  it('are refused as payload_too_large (413) before a workflow starts', async () => {
    const { client, starts } = refusingClient();
    const caller = new ToolCaller(client);
    // Within the schema's character limit, but three UTF-8 bytes a character: past the byte limit.
    const csv = `First Name\n${'€'.repeat(MAX_IMPORT_CHARS - 20)}`;
    expect(csv.length).toBeLessThanOrEqual(MAX_IMPORT_CHARS);
    const error = await refusal(caller.call(principal, 'people_import_contacts', { csv }));
    expect(error.code).toBe('payload_too_large');
    expect(httpStatusFor(error.code)).toBe(413);
    expect(error.message.length).toBeLessThan(200);
    expect(starts()).toBe(0);
  });

  it('the largest import the schema allows, in plain ASCII, fits', () => {
    const caller = new ToolCaller(refusingClient().client);
    const csv = `First Name\n${'a'.repeat(MAX_IMPORT_CHARS - 20)}`;
    expect(() => caller.resolve(principal, 'people_import_contacts', { csv })).not.toThrow();
  });

  it('jsonFits counts UTF-8 bytes, surrogate pairs as four', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(jsonFits('a'.repeat(100), 102)).toBe(true);
    expect(jsonFits('a'.repeat(101), 102)).toBe(false);
    expect(jsonFits('€'.repeat(40), 122)).toBe(true);
    expect(jsonFits('€'.repeat(41), 122)).toBe(false);
    expect(jsonFits({ csv: 'a'.repeat(MAX_ARGS_BYTES) }, MAX_ARGS_BYTES)).toBe(false);
  });
});

describe('unstorable text', () => {
  it('finds a NUL or an unpaired surrogate at any depth, in values and keys, and nothing else', () => {
    expect(unstorableTextIssues({
      ok: 'Grace 😀 é', nul: 'a\u0000b', list: ['fine', 'lone \uD800 high'], nested: { low: 'x\uDC00', ['bad\u0000key']: 'v' }, n: 1, b: true, z: null,
    })).toEqual([
      { path: 'nul', message: expect.stringContaining('NUL') },
      { path: 'list.1', message: expect.stringContaining('surrogate') },
      { path: 'nested.low', message: expect.stringContaining('surrogate') },
      { path: 'nested.(key)', message: expect.stringContaining('NUL') },
    ]);
    expect(unstorableTextIssues('\u0000')).toEqual([{ path: '(arguments)', message: expect.any(String) }]);
  });

  it('is refused by the API as validation_failed with the schema\'s own issues beside it', () => {
    const caller = new ToolCaller(refusingClient().client);
    let error: unknown;
    try {
      caller.resolve(principal, 'people_create_contact', { firstName: 'Gr\u0000ace', gender: 'dragon' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StewardError);
    expect((error as StewardError).code).toBe('validation_failed');
    expect((error as StewardError).issues?.map((issue) => issue.path)).toEqual(['firstName', 'gender']);
  });
});

describe('nothing repeats a huge caller value', () => {
  const huge = 'v'.repeat(1_000_000);

  it('quoteInput keeps a short prefix and says how long the value was', () => {
    expect(quoteInput('short')).toBe('"short"');
    expect(quoteInput(huge)).toBe(`"${'v'.repeat(40)}"… (1000000 characters)`);
  });

  it('a tool\'s error crosses into the workflow cut to size, message, hint and issues alike', () => {
    const failure = toFailure(new StewardError('validation_failed', `x: "${huge}" is wrong`, {
      hint: huge, issues: Array.from({ length: 500 }, () => ({ path: huge, message: huge })), details: { blob: huge },
    })) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe('validation_failed');
    expect(failure.message.length).toBeLessThan(2_100);
    expect(JSON.stringify(failure.details).length).toBeLessThan(200_000);
    expect(boundedBody({ code: 'not_found', message: 'm', details: { id: 'a' } })).toEqual({ code: 'not_found', message: 'm', details: { id: 'a' } });
  });

  it('any other error keeps its type but loses the bulk of its message', () => {
    const error = toFailure(new Error(huge)) as Error;
    expect(error.message.length).toBeLessThan(2_100);
  });
});
