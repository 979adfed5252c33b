/** A call export (GET /v1/calls/export) that has started and that the client has stopped reading. */
export interface HeldExport {
  /** Reads on to the end: the lines that arrived, and the error if the body was cut (undefined: whole). */
  finish(): Promise<{ lines: number; cut: unknown }>;
}

/**
 * Opens an export and reads its first piece, then reads no more until `finish`: with more calls
 * than the socket buffers hold, the server is left in the middle of it, held by backpressure.
 */
export async function holdExport(baseUrl: string, key: string, query = 'format=csv'): Promise<HeldExport> {
  const response = await fetch(new URL(`/v1/calls/export?${query}`, baseUrl), {
    headers: { authorization: `Bearer ${key}` },
  });
  if (response.status !== 200)
    throw new Error(`export answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  let lines = 0;
  const count = (chunk: Uint8Array) => {
    for (const byte of chunk) if (byte === 10) lines++;
  };
  const first = await reader.read();
  if (first.value) count(first.value);
  return {
    async finish() {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return { lines, cut: undefined };
          count(value);
        }
      } catch (error) {
        return { lines, cut: error };
      }
    },
  };
}
