import { useEffect, useState } from 'preact/hooks';

/** Where the app lives: every route is a path under it, so deep links load (the gateway's SPA fallback). */
export const BASE = '/dashboard';

/** The route path under BASE: "/calls", "/calls/<id>", "/account". */
export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

export function navigate(path: string): void {
  history.pushState(null, '', BASE + path + location.search);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return path;
}

/** A click on an in-app link: handled without a reload, unless the user asked for a new tab. */
export function followLink(event: MouseEvent, path: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
    return;
  event.preventDefault();
  navigate(path);
}
