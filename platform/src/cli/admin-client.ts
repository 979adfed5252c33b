/** A small client of the admin API: the operator CLI's only way in, same as any HTTP caller. */
export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T | undefined> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
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
}
