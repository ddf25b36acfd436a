/**
 * The dashboard's only way to the server: the admin API, with the admin token from session
 * storage as Bearer. No cookie authenticates anything, so cross-site requests cannot act as
 * the signed-in admin.
 */

const TOKEN_KEY = 'gateway-admin-token';

export const session = {
  get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  signIn(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null,
  ) {
    super(message);
  }
}

type Listener = () => void;
const unauthorisedListeners = new Set<Listener>();
/** Called when the server refuses the token (signed out elsewhere, token rotated). */
export function onUnauthorised(listener: Listener): () => void {
  unauthorisedListeners.add(listener);
  return () => unauthorisedListeners.delete(listener);
}

async function send<T>(url: string, init: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const error = (body as { error?: { message?: string; param?: string | null } } | null)?.error;
    if (res.status === 401 && url.startsWith('/admin/')) unauthorisedListeners.forEach((l) => l());
    throw new ApiError(res.status, error?.message ?? `${res.status} ${res.statusText}`, error?.param ?? null);
  }
  return body as T;
}

export function admin<T>(method: string, path: string, body?: unknown, token = session.token): Promise<T> {
  return send<T>(`/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token ?? ''}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export interface ModelInfo {
  id: string;
  /** The vendor family serving it, as the gateway's vendor plugins name it. */
  family: string;
  owned_by: string;
}

export async function listModels(): Promise<ModelInfo[]> {
  return (await send<{ data: ModelInfo[] }>('/v1/models', {})).data;
}
