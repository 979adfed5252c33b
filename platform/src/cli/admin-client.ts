/** A request gets this long; an address that drops packets would otherwise hang the CLI. */
const REQUEST_TIMEOUT_MS = 30_000;

/** What a connection failure's code means, and what the operator can check. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens there. Is the platform running, on that port?',
  ENOTFOUND: 'host not found: check the host name.',
  EAI_AGAIN: 'the host name could not be resolved (DNS unavailable?): check the host name and the network.',
  ETIMEDOUT: 'the connection timed out: check the address and any firewall in between.',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out: check the address and any firewall in between.',
  ECONNRESET: 'the connection was reset: is that address the gateway (not, say, a TLS port over http)?',
  EHOSTUNREACH: 'host unreachable: check the address and the network.',
  ENETUNREACH: 'network unreachable: check the address and the network.',
};

/** The error code behind undici's bare "fetch failed" (an AggregateError when several addresses were tried). */
function causeCode(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code) return code;
    const first = (cause as Partial<AggregateError>).errors?.[0] as NodeJS.ErrnoException | undefined;
    if (first?.code) return first.code;
  }
  return undefined;
}

/** "fetch failed: bad port": each message down the cause chain. */
function messages(error: unknown): string {
  const parts: string[] = [];
  for (let cause = error; cause !== undefined; cause = cause instanceof Error ? cause.cause : undefined) {
    parts.push(cause instanceof Error ? cause.message : String(cause));
  }
  return parts.join(': ');
}

/** A small client of the admin API: the operator CLI's only way in, same as any HTTP caller. */
export class AdminClient {
  private readonly baseUrl: URL;

  constructor(
    baseUrl: string,
    private readonly token: string,
  ) {
    try {
      this.baseUrl = new URL(baseUrl);
    } catch {
      throw new Error(`VOICE_API_URL is not a URL: '${baseUrl}' (expected e.g. http://127.0.0.1:3000)`);
    }
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T | undefined> {
    const url = new URL(path, this.baseUrl);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw this.unreachable(method, url, error);
    }
    if (response.status === 204) return undefined;
    const payload = (await response.json().catch(() => undefined)) as
      | { data?: T; detail?: unknown }
      | undefined;
    if (!response.ok) {
      const detail = payload?.detail;
      const text = Array.isArray(detail)
        ? detail
            .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg}`)
            .join('; ')
        : String(detail ?? response.statusText);
      throw new Error(`${response.status} ${text}`);
    }
    return payload?.data;
  }

  private unreachable(method: string, url: URL, error: unknown): Error {
    const code = causeCode(error);
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    const reason = timedOut
      ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s: is that address the gateway, and is it overloaded?`
      : code
        ? `${CAUSES[code] ?? 'the request failed.'} (${code})`
        : `${messages(error)}.`;
    return new Error(
      `cannot reach the admin API at ${this.baseUrl.origin} (${method} ${url.pathname}): ${reason}\n` +
        'The address comes from VOICE_API_URL (default http://127.0.0.1:3000): point it at a gateway.',
      { cause: error },
    );
  }
}
