/** How a contact is named wherever one is shown: preferred or first name with the last name, else the email. Its own file so welcome-desk.ts and contacts.ts need not import each other. */
export function displayNameOf(row: { preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }): string {
  const first = row.preferred_name ?? row.first_name;
  const name = [first, row.last_name].filter(Boolean).join(' ');
  return name || row.email || 'Unnamed contact';
}
