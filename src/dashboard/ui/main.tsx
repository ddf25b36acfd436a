import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onUnauthorised, session } from './api.js';
import { AuditPage } from './pages/audit.js';
import { DeploymentsPage } from './pages/deployments.js';
import { ImportsPage } from './pages/imports.js';
import { KeysPage } from './pages/keys.js';
import { RequestsPage } from './pages/requests.js';
import { SignIn } from './pages/sign-in.js';
import { UsagePage } from './pages/usage.js';

const PAGES = {
  keys: { title: 'Keys', component: KeysPage },
  usage: { title: 'Usage', component: UsagePage },
  requests: { title: 'Requests', component: RequestsPage },
  imports: { title: 'Imports', component: ImportsPage },
  deployments: { title: 'Deployments', component: DeploymentsPage },
  audit: { title: 'Audit', component: AuditPage },
} as const;
type PageName = keyof typeof PAGES;

const pageFromHash = (): PageName => {
  // A page may carry its own query after its name (`#/requests?status=4xx`).
  const name = location.hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  return name in PAGES ? (name as PageName) : 'keys';
};

function App() {
  const [signedIn, setSignedIn] = useState(session.token !== null);
  const [reason, setReason] = useState<string | null>(null);
  const [page, setPage] = useState<PageName>(pageFromHash());

  useEffect(() => {
    const onHash = () => setPage(pageFromHash());
    window.addEventListener('hashchange', onHash);
    const stop = onUnauthorised(() => {
      session.signOut();
      setReason('Your admin token is no longer accepted; sign in again.');
      setSignedIn(false);
    });
    return () => {
      window.removeEventListener('hashchange', onHash);
      stop();
    };
  }, []);
  useEffect(() => {
    document.title = `${PAGES[page].title} · Gateway dashboard`;
  }, [page]);

  if (!signedIn) {
    const signedInNow = (): void => {
      setReason(null);
      setSignedIn(true);
    };
    return <SignIn reason={reason} onSignedIn={signedInNow} />;
  }
  const Page = PAGES[page].component;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Gateway</span>
        <nav aria-label="Dashboard">
          {(Object.keys(PAGES) as PageName[]).map((name) => (
            <a key={name} href={`#/${name}`} aria-current={name === page ? 'page' : undefined}>
              {PAGES[name].title}
            </a>
          ))}
        </nav>
        <button
          type="button"
          class="link"
          onClick={() => {
            session.signOut();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
