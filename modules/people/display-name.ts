export function displayNameOf(row: { preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }): string {
  const first = row.preferred_name ?? row.first_name;
  const name = [first, row.last_name].filter(Boolean).join(' ');
  return name || row.email || 'Unnamed contact';
}
