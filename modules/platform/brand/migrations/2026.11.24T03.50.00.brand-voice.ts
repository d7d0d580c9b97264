import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = ['brand_voice_profiles', 'public_profiles'];

/**
 * One saved brand voice and one public name per organisation, keyed by the organisation so a
 * second save can only ever update the first (concurrent saves serialise on the row).
 */
export const brandVoice: Migration = {
  name: '2026.11.24T03.50.00.brand-voice',
  up: `
CREATE TABLE brand_voice_profiles (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  template_id text,
  customised boolean NOT NULL DEFAULT false,
  name text NOT NULL,
  tone text NOT NULL,
  formality text NOT NULL CHECK (formality IN ('relaxed', 'warm', 'measured', 'formal')),
  emoji_use text NOT NULL CHECK (emoji_use IN ('never', 'sparingly', 'freely')),
  vocabulary_do text[] NOT NULL DEFAULT '{}',
  vocabulary_dont text[] NOT NULL DEFAULT '{}',
  sample text NOT NULL,
  updated_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE public_profiles (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  trading_name text NOT NULL,
  statement_descriptor text,
  processor_account_id text,
  sync_status text NOT NULL CHECK (sync_status IN ('synced', 'not_configured', 'no_account', 'failed')),
  sync_message text,
  synced_at timestamptz,
  updated_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- A connected account belongs to one organisation: otherwise one tenant could push its name onto another's account.
CREATE UNIQUE INDEX public_profiles_processor_account_key ON public_profiles (processor_account_id) WHERE processor_account_id IS NOT NULL;
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE public_profiles;
DROP TABLE brand_voice_profiles;
`,
};
