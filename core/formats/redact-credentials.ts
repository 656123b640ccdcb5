/**
 * Credentials in request heads (issue 36): the values of `Cookie`, `Authorization` and
 * `Proxy-Authorization` are what lets anyone holding an archive act as the logged-in person.
 * `--redact-credentials` writes a fixed marker in their place (the header names stay, so a reader
 * still sees that credentials were sent); `trove check` asks whether a request head still holds
 * any. Only the head is touched: a request body that follows it is kept byte for byte.
 */

/** What a redacted header's value becomes. */
export const CREDENTIALS_MARKER = 'trove-redacted';

const CREDENTIAL_HEADERS = new Set(['cookie', 'authorization', 'proxy-authorization']);

/** Where the head ends (after its empty line), or the whole buffer when it has none. */
function headEnd(block: Buffer): number {
  const i = block.indexOf('\r\n\r\n');
  return i < 0 ? block.length : i + 4;
}

/** The names of the credential headers a request head holds with a real value (not the marker). */
export function credentialHeaders(block: Buffer): string[] {
  const found: string[] = [];
  for (const line of block.subarray(0, headEnd(block)).toString('latin1').split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0 || line[0] === ' ' || line[0] === '\t') continue;
    const name = line.slice(0, i).trim();
    if (CREDENTIAL_HEADERS.has(name.toLowerCase()) && line.slice(i + 1).trim() !== CREDENTIALS_MARKER) found.push(name);
  }
  return found;
}

/**
 * The request block with the credential headers' values replaced by the marker (continuation
 * lines of those headers dropped); the same Buffer when it holds none.
 */
export function redactCredentials(block: Buffer): Buffer {
  if (credentialHeaders(block).length === 0) return block;
  const end = headEnd(block);
  const lines = block.subarray(0, end).toString('latin1').split('\r\n');
  const out: string[] = [];
  let dropping = false;
  for (const [n, line] of lines.entries()) {
    if (n > 0 && (line.startsWith(' ') || line.startsWith('\t')) && line !== '') {
      if (!dropping) out.push(line);
      continue;
    }
    const i = line.indexOf(':');
    dropping = n > 0 && i > 0 && CREDENTIAL_HEADERS.has(line.slice(0, i).trim().toLowerCase());
    out.push(dropping ? `${line.slice(0, i)}: ${CREDENTIALS_MARKER}` : line);
  }
  return Buffer.concat([Buffer.from(out.join('\r\n'), 'latin1'), block.subarray(end)]);
}
