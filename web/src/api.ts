// The dashboard is a client of the public API, like any other: the bearer token the person
// pasted, the same endpoints, the same errors. The token lives in sessionStorage (this tab,
// until it closes), is sent only as the Authorization header, and never goes into a URL or a
// cookie.

const TOKEN_KEY = 'ledgerline.token';
export const API = '/api/v1';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  signOut: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An error answer of the API: its status and `error` envelope, with the fields it names. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** A 422's message per field (`url`, `events`), as the API names them. */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface Answer<T> {
  data: T;
  /** X-Data-As-Of: the moment of the store the read model shows. */
  dataAsOf: string | null;
  body: Record<string, unknown>;
}

type Query = Record<string, string | number | undefined>;

function url(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return `${API}${path}${text ? `?${text}` : ''}`;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

async function request(
  path: string,
  query?: Query,
  write?: { method: Method; body?: unknown },
): Promise<Response> {
  const token = session.token();
  if (!token) throw new ApiError(401, 'unauthenticated', 'Not signed in.');
  const headers: Record<string, string> = {
    Authorization: `Bearer ${token}`,
    Accept: 'application/json',
  };
  // A body only when there is one: an empty body sent as JSON is a 400.
  if (write?.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(url(path, query), {
    method: write?.method ?? 'GET',
    headers,
    cache: 'no-store',
    ...(write?.body !== undefined ? { body: JSON.stringify(write.body) } : {}),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as {
      error?: { code?: string; message?: string; fields?: Record<string, string> };
    };
    throw new ApiError(
      response.status,
      body.error?.code ?? 'unknown',
      body.error?.message ?? `${response.status} ${response.statusText}`,
      body.error?.fields ?? {},
    );
  }
  return response;
}

/** GET of a JSON answer: `data` and the freshness header. */
export async function get<T>(path: string, query?: Query): Promise<Answer<T>> {
  const response = await request(path, query);
  const body = (await response.json()) as Record<string, unknown>;
  return { data: body.data as T, dataAsOf: response.headers.get('X-Data-As-Of'), body };
}

/** A write (POST, PATCH, DELETE) with a JSON body or none: the answer's `data`. */
export async function send<T>(
  method: Exclude<Method, 'GET'>,
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const response = await request(path, undefined, { method, body });
  const answer = (await response.json()) as Record<string, unknown>;
  return { data: answer.data as T, dataAsOf: response.headers.get('X-Data-As-Of'), body: answer };
}

/** GET of a file (an export): its bytes and the name the server gives it. */
export async function download(path: string, query: Query): Promise<{ blob: Blob; name: string }> {
  const response = await request(path, query);
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? 'export';
  return { blob: await response.blob(), name };
}

/** GET /me: who the token is. */
export interface Me {
  orgId: string;
  orgName: string;
  userId: string;
  role: 'MEMBER' | 'MANAGER' | 'ADMIN' | 'OWNER';
  plan: 'free' | 'solo' | 'studio' | 'agency';
  scopes: ('read' | 'write')[];
  env: 'live' | 'test';
  tokenPrefix: string;
}
