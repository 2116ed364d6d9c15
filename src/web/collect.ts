/**
 * Chunks of a body into one array of its own. Buffer.concat may answer a
 * slice of Node's shared pool, which must not be handed to a thread (the
 * transfer would take the pool from everyone else).
 */
export async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    size += chunk.length;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}
