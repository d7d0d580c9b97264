import type { ReceivedMail } from './message-servers';

/** The acceptance link in a received team invitation (quoted-printable soft breaks undone). */
export function inviteLinkOf(mail: ReceivedMail): string {
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const link = /(https?:\/\/\S+\/team\/invite\/inv_[A-Za-z0-9_-]{43})/.exec(text)?.[1];
  if (!link) throw new Error(`No invitation link in:\n${mail.raw}`);
  return link;
}
