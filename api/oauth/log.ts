/**
 * Logs that an OAuth step failed without its message: driver and library
 * messages can quote the values involved, and here those values are codes,
 * tokens and secrets.
 */
export function logFailure(where: string, error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown } | undefined)?.code;
  console.error(`oauth: ${where} failed (${name}${typeof code === 'string' ? ` ${code}` : ''})`);
}
