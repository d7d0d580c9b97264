import type { Role } from '../../../core/roles';
import type { ChildProfile, CheckinSettings, LabelOptions } from './setup';

/**
 * What the printers get. Medical and allergy notes go on the child's own label only, never on the
 * parent's tag (which leaves the building); the details are filled in only for a caller whose role
 * the organisation allows to see them, while `medicalAlert` always shows there is something to ask.
 */
export interface ChildLabel {
  checkinId: string;
  contactId: string;
  name: string;
  locationName: string;
  securityCode: string;
  medicalAlert: boolean;
  allergies: string | null;
  medicalNotes: string | null;
  /** True when notes exist but this caller's role may not see them. */
  medicalWithheld: boolean;
}

export interface ParentTag {
  securityCode: string;
  children: Array<{ name: string; locationName: string }>;
}

export interface Labels {
  childLabels: ChildLabel[];
  parentTag: ParentTag | null;
  copies: number;
}

export function mayReadMedical(role: Role, settings: Pick<CheckinSettings, 'medicalVisibleRoles'> & Partial<CheckinSettings>): boolean {
  return settings.medicalVisibleRoles.includes(role);
}

export interface LabelledChild {
  checkinId: string;
  contactId: string;
  name: string;
  locationName: string;
}

export function labelsFor(
  children: readonly LabelledChild[], code: string | null, profiles: Map<string, ChildProfile>, options: LabelOptions, mayRead: boolean,
): Labels {
  if (!code || children.length === 0) return { childLabels: [], parentTag: null, copies: options.copies };
  const childLabels = options.childLabel ? children.map((child) => {
    const profile = profiles.get(child.contactId);
    const hasNotes = Boolean(profile?.allergies || profile?.medicalNotes);
    const show = mayRead && options.showAllergies;
    return {
      ...child, securityCode: code, medicalAlert: hasNotes,
      allergies: show ? profile?.allergies ?? null : null,
      medicalNotes: show ? profile?.medicalNotes ?? null : null,
      medicalWithheld: hasNotes && !show,
    };
  }) : [];
  const parentTag = options.parentTag ? { securityCode: code, children: children.map((child) => ({ name: child.name, locationName: child.locationName })) } : null;
  return { childLabels, parentTag, copies: options.copies };
}
