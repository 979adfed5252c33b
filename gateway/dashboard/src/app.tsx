import { useEffect, useState } from 'preact/hooks';
import { onAuthRefused } from './api';
import { forgetKey, keepKey, storedKey } from './key';
import { closeLive } from './live';
import { AccountPage } from './pages/account';
import { AgentsRoute } from './pages/agents';
import { CallPage } from './pages/call';
import { CallsPage } from './pages/calls';
import { CampaignsRoute } from './pages/campaigns';
import { SignIn } from './pages/sign-in';
import { navigate, usePath } from './router';
import { Link } from './ui';

const NAV = [
  { to: '/calls', name: 'Calls' },
  { to: '/agents', name: 'Agents' },
  { to: '/campaigns', name: 'Campaigns' },
  { to: '/account', name: 'Account' },
];

/** The signed-in shell: a skip link, the navigation, and the page the address names. */
export function App() {
  const [key, setKey] = useState(storedKey());
  const [notice, setNotice] = useState<string>();
  const path = usePath();

  useEffect(
    () =>
      onAuthRefused((message) => {
        forgetKey();
        closeLive();
        setNotice(`Signed out: the server refused the API key (${message}).`);
        setKey('');
      }),
    [],
  );

  if (!key) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(typed) => {
          keepKey(typed);
          setNotice(undefined);
          setKey(typed);
          if (path === '/') navigate('/calls');
        }}
      />
    );
  }

  const signOut = () => {
    forgetKey();
    closeLive();
    setKey('');
  };
  const callMatch = /^\/calls\/([0-9a-f-]{36})$/.exec(path);
  let page = <CallsPage />;
  if (callMatch?.[1]) page = <CallPage id={callMatch[1]} />;
  else if (path === '/account') page = <AccountPage />;
  else if (path === '/agents' || path.startsWith('/agents/')) page = <AgentsRoute path={path} />;
  else if (path === '/campaigns' || path.startsWith('/campaigns/')) page = <CampaignsRoute path={path} />;

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Voice dashboard</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <Link to={item.to} current={path === item.to || path.startsWith(`${item.to}/`)}>
                  {item.name}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="quiet" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
