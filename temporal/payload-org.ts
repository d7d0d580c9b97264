import type { Payload, SerializationContext } from '@temporalio/common';

/**
 * Which organisation a batch of Temporal payloads belongs to, so the codec can
 * seal that organisation's id into each payload (see EncryptionCodec) and the
 * operator codec endpoint can decode a payload only for that organisation's
 * owners and admins.
 *
 * A codec sees payloads after conversion and knows only the serialization
 * context Temporal gives it: the workflow id of the workflow (or of the workflow
 * that scheduled the activity) the payloads belong to. So the organisation comes
 * from, in order:
 *
 * 1. the workflow id, for the kinds whose id names it (`call-<org>-…`,
 *    `agent-run-<org>-…`, `automation-run-<org>-…`; Steward's API and
 *    schedules choose these ids from the caller's organisation);
 * 2. what this process has already learnt about a `proposal-<id>` or
 *    `outreach-<id>` workflow (these ids do not name it), from a payload of that
 *    workflow it sealed or opened before;
 * 3. the values themselves: a JSON payload whose top-level object has an
 *    `orgId`, or a `principal.orgId` (workflow inputs such as tool plans,
 *    proposal and outreach inputs, decisions carrying a principal).
 *
 * Anything else stays un-attributed (e.g. the maintenance workflow, which is not
 * about one organisation) and is never decoded for an operator.
 */

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID_ONLY = new RegExp(`^${UUID}$`, 'i');
/** Schedules append a timestamp to these ids; the organisation stays right after the prefix. */
const ORG_NAMED_IN_ID = new RegExp(`^(?:call|agent-run|automation-run)-(${UUID})-`, 'i');
/** Single-organisation workflows whose id does not name the organisation. */
const LEARNABLE_ID = new RegExp(`^(?:proposal|outreach)-${UUID}$`, 'i');

const JSON_ENCODING = 'json/plain';
// Only small JSON values are inspected; plans and approval inputs are far below this.
const MAX_INSPECTED_BYTES = 256 * 1024;
const MAX_REMEMBERED = 10_000;

export function isOrgId(value: unknown): value is string {
  return typeof value === 'string' && UUID_ONLY.test(value);
}

function workflowIdOf(context: SerializationContext | undefined): string | undefined {
  return context?.workflowId || undefined;
}

/** The organisation a workflow id names, if it is one of the kinds that name it. */
export function orgNamedByWorkflowId(workflowId: string | undefined): string | undefined {
  const match = workflowId ? ORG_NAMED_IN_ID.exec(workflowId) : null;
  return match ? match[1].toLowerCase() : undefined;
}

/** `orgId` or `principal.orgId` at the top level of a JSON payload. */
export function orgNamedByValue(payload: Payload): string | undefined {
  const encoding = payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding).toString() : '';
  if (encoding !== JSON_ENCODING || !payload.data || payload.data.length > MAX_INSPECTED_BYTES) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload.data).toString('utf8'));
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as { orgId?: unknown; principal?: { orgId?: unknown } | null };
  if (isOrgId(record.orgId)) return record.orgId.toLowerCase();
  const principalOrg = record.principal && typeof record.principal === 'object' ? record.principal.orgId : undefined;
  return isOrgId(principalOrg) ? principalOrg.toLowerCase() : undefined;
}

export class OrgAttribution {
  // Insertion-ordered, so the oldest entry is evicted first.
  private readonly learnt = new Map<string, string>();

  /** The organisation of a batch about to be sealed, or undefined when it cannot be told. */
  orgFor(payloads: Payload[], context?: SerializationContext): string | undefined {
    const workflowId = workflowIdOf(context);
    const named = orgNamedByWorkflowId(workflowId);
    if (named) return named;
    const remembered = this.recall(context);
    if (remembered) return remembered;
    for (const payload of payloads) {
      const org = orgNamedByValue(payload);
      if (org) {
        this.remember(context, org);
        return org;
      }
    }
    return undefined;
  }

  /** Notes the organisation of a proposal or outreach workflow, from a payload sealed for it. */
  remember(context: SerializationContext | undefined, orgId: string): void {
    const key = this.keyOf(context);
    if (!key) return;
    this.learnt.delete(key);
    this.learnt.set(key, orgId);
    if (this.learnt.size > MAX_REMEMBERED) this.learnt.delete(this.learnt.keys().next().value as string);
  }

  private recall(context: SerializationContext | undefined): string | undefined {
    const key = this.keyOf(context);
    return key ? this.learnt.get(key) : undefined;
  }

  /** Only workflows known to serve one organisation are remembered. */
  private keyOf(context: SerializationContext | undefined): string | undefined {
    const workflowId = workflowIdOf(context);
    if (!context || !workflowId || !LEARNABLE_ID.test(workflowId)) return undefined;
    return `${context.namespace}\n${workflowId}`;
  }
}
