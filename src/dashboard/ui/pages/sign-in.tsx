import { ErrorNote } from '../components/error-note.js';
import { useState } from 'preact/hooks';
import { admin, ApiError, session } from '../api.js';

export function SignIn({ onSignedIn, reason }: { onSignedIn: () => void; reason: string | null }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(reason);
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await admin('GET', '/keys', undefined, token.trim());
      session.signIn(token.trim());
      onSignedIn();
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? 'That admin token was refused.' : (e as Error).message);
    }
  };
  return (
    <main class="sign-in">
      <form class="stack card" onSubmit={(event) => void submit(event)}>
        <h1>Gateway dashboard</h1>
        <label>
          Admin token
          <input type="password" autoComplete="current-password" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <p class="muted small">Kept in this tab's session storage only, and sent as a Bearer token to the admin API.</p>
        <ErrorNote message={error} />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}
