/** The message of anything thrown: an Error's message, else its text. For errors shown to people or parsed; logs take `{ err }` (pino's serializer keeps the stack, code and cause). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : `${err as string}`;
}
