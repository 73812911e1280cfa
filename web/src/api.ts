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

/** An error answer of the API: its status and `error` envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
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

async function request(path: string, query?: Query): Promise<Response> {
  const token = session.token();
  if (!token) throw new ApiError(401, 'unauthenticated', 'Not signed in.');
  const response = await fetch(url(path, query), {
    headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    cache: 'no-store',
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as {
      error?: { code?: string; message?: string };
    };
    throw new ApiError(
      response.status,
      body.error?.code ?? 'unknown',
      body.error?.message ?? `${response.status} ${response.statusText}`,
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
