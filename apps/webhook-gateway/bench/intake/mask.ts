// Child processes' output is shown when something fails; the bench's own secrets (the bearer
// token, a password in DATABASE_URL) must never reach the terminal with it.

export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) if (secret.length > 0) masked = masked.replaceAll(secret, '***');
  return masked;
}

/** The password of a connection URL, if it has one (to mask it wherever it might show up). */
export function urlPassword(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}
