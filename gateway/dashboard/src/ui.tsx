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

/** A page's heading with the link back to its list above it. */
export function PageTitle(props: {
  id: string;
  back: { to: string; label: string };
  children: ComponentChildren;
}) {
  return (
    <>
      <p>
        <Link to={props.back.to}>← {props.back.label}</Link>
      </p>
      <h1 id={props.id}>{props.children}</h1>
    </>
  );
}

/** A list page's heading with its "New …" link beside it. */
export function ListTitle(props: { id: string; title: string; newTo: string; newLabel: string }) {
  return (
    <div class="title-row">
      <h1 id={props.id}>{props.title}</h1>
      <Link to={props.newTo} class="button-link">
        {props.newLabel}
      </Link>
    </div>
  );
}

/** What a list shows before its table: an error, "Loading…" until the first answer, or `empty` (if given). */
export function ListStatus(props: {
  rows: readonly unknown[] | undefined;
  error: string | undefined;
  empty?: string;
}) {
  return (
    <>
      <ErrorNote message={props.error} />
      {props.rows === undefined && !props.error && <p aria-live="polite">Loading…</p>}
      {props.rows?.length === 0 && props.empty && <p class="hint">{props.empty}</p>}
    </>
  );
}

/**
 * A table with its (screen-reader) caption and column headings; `children` are its rows. Wrapped so
 * that a narrow screen scrolls the table, not the page.
 */
export function DataTable(props: {
  testId: string;
  caption: string;
  columns: readonly ComponentChildren[];
  class?: string;
  /** Kept to the page's content width (lists inside a page) rather than the board's full width. */
  contained?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class={props.contained ? 'table-wrap contained' : 'table-wrap'}>
      <table class={props.class} data-testid={props.testId}>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column, i) => (
              <th key={i} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** A record page's answer when its id names nothing in the account. */
export function NotFound(props: { title: string; children: ComponentChildren }) {
  return (
    <section>
      <h1>{props.title}</h1>
      <p>{props.children}</p>
    </section>
  );
}

/** A record page before its record arrived: "Loading…", or why it did not. */
export function Loading(props: { error: string | undefined }) {
  return <p aria-live="polite">{props.error ? <ErrorNote message={props.error} /> : 'Loading…'}</p>;
}

/** A form's submit button (its label while busy) and the status line that says what was saved. */
export function FormActions(props: {
  busy: boolean;
  label: string;
  disabled?: boolean;
  saved: string | undefined;
  wide?: boolean;
}) {
  return (
    <div class={props.wide ? 'form-actions wide' : 'form-actions'}>
      <button type="submit" disabled={props.busy || props.disabled}>
        {props.busy ? 'Saving…' : props.label}
      </button>
      <span class="hint" role="status">
        {props.saved}
      </span>
    </div>
  );
}
