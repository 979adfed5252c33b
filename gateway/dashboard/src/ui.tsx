import type { ComponentChildren } from 'preact';
import { followLink } from './router';

/** An in-app link: a real href (open in a new tab works), followed without a reload. */
export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a
      href={`/dashboard${props.to}`}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => followLink(event, props.to)}
    >
      {props.children}
    </a>
  );
}

export function StatusBadge(props: { status: string }) {
  return (
    <span class={`badge status-${props.status.toLowerCase()}`}>
      {props.status.toLowerCase().replaceAll('_', ' ')}
    </span>
  );
}

export function ErrorNote(props: { message: string | undefined }) {
  return props.message ? (
    <p class="error" role="alert">
      {props.message}
    </p>
  ) : null;
}
