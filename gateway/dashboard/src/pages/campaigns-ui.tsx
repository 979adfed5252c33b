import type { ComponentChildren } from 'preact';
import type { FieldIssue } from '../api';
import { type Counts, doneOf, PARTS, WEEKDAYS } from './campaigns-model';

/**
 * The counts as one stacked bar (a progressbar: done of total, said in words) with the numbers
 * beside it as text, so nothing is told by colour alone.
 */
export function ProgressBar(props: { counts: Counts; label: string; compact?: boolean }) {
  const { counts } = props;
  const done = doneOf(counts);
  const total = Math.max(counts.total, 1);
  return (
    <div class="progress">
      <div
        class="bar"
        role="progressbar"
        aria-label={props.label}
        aria-valuemin={0}
        aria-valuemax={counts.total}
        aria-valuenow={done}
        aria-valuetext={`${done} of ${counts.total} contacts done`}
      >
        {PARTS.map(([key]) =>
          counts[key] > 0 ? (
            <span key={key} class={`part part-${key}`} style={{ width: `${(counts[key] / total) * 100}%` }} />
          ) : null,
        )}
      </div>
      {props.compact ? (
        <span class="hint" data-testid="done-count">
          {done} / {counts.total} done
        </span>
      ) : (
        <ul class="count-list" data-testid="counts">
          {PARTS.map(([key, name]) => (
            <li key={key} data-count={key}>
              <span class={`swatch part-${key}`} aria-hidden="true" />
              {name} <strong>{counts[key]}</strong>
            </li>
          ))}
          <li data-count="total">
            Total <strong>{counts.total}</strong>
          </li>
        </ul>
      )}
    </div>
  );
}

/** Previous/next over a cursor-paged list: the cursors of the pages seen are kept to go back. */
export function Pager(props: {
  what: string;
  page: number;
  hasMore: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  return (
    <nav class="pager" aria-label={`${props.what} pages`}>
      <button type="button" class="quiet" disabled={props.page === 0} onClick={props.onPrevious}>
        Previous page
      </button>
      <span>Page {props.page + 1}</span>
      <button type="button" class="quiet" disabled={!props.hasMore} onClick={props.onNext}>
        Next page
      </button>
    </nav>
  );
}

/** The server's word on one field of a refused input, shown beside it and tied to it by id. */
export function FieldError(props: { id: string; issues: FieldIssue[]; field: string }) {
  const messages = props.issues
    .filter((issue) => issue.field === props.field || issue.field.startsWith(`${props.field}.`))
    .map((issue) => issue.message);
  return messages.length ? (
    <span class="field-error" id={props.id} role="alert">
      {messages.join('; ')}
    </span>
  ) : null;
}

/** The attributes that tie an input to its label and to its error line. */
export interface FieldInput {
  id: string;
  'aria-describedby': string;
  'aria-invalid': boolean;
}

/**
 * A labelled field of a campaign form with the server's word on it (`field`: the input's name in
 * the API). `children` renders the input, given the attributes that tie it to both.
 */
export function Field(props: {
  id: string;
  label: string;
  field: string;
  issues: FieldIssue[];
  wide?: boolean;
  hint?: string;
  children: (input: FieldInput) => ComponentChildren;
}) {
  const { id, field, issues } = props;
  const input: FieldInput = {
    id,
    'aria-describedby': `${id}-error`,
    'aria-invalid': issues.some((issue) => issue.field === field),
  };
  return (
    <div class={props.wide ? 'field wide' : 'field'}>
      <label for={id}>{props.label}</label>
      {props.children(input)}
      {props.hint ? <span class="hint">{props.hint}</span> : null}
      <FieldError id={`${id}-error`} issues={issues} field={field} />
    </div>
  );
}

/** A calling window as the form edits it. */
export interface WindowDraft {
  on: boolean;
  days: string[];
  start: string;
  end: string;
  timezone: string;
  fallbackTimezone: string;
}

export const NO_WINDOW: WindowDraft = {
  on: false,
  days: ['MON', 'TUE', 'WED', 'THU', 'FRI'],
  start: '09:00',
  end: '18:00',
  timezone: 'recipient',
  fallbackTimezone: 'UTC',
};

/** The CallingWindowInput of a draft; null when the window is off. */
export function windowInput(draft: WindowDraft) {
  if (!draft.on) return null;
  return {
    days: draft.days,
    start: draft.start,
    end: draft.end,
    timezone: draft.timezone || 'recipient',
    fallbackTimezone: draft.fallbackTimezone || 'UTC',
  };
}

/** The fields of a calling window; errors of `callingWindow.<field>` are shown beside each. */
export function WindowFields(props: {
  idPrefix: string;
  draft: WindowDraft;
  issues: FieldIssue[];
  onChange: (draft: WindowDraft) => void;
}) {
  const { draft, idPrefix: id } = props;
  const set = (change: Partial<WindowDraft>) => props.onChange({ ...draft, ...change });
  const invalid = (field: string) => props.issues.some((issue) => issue.field === `callingWindow.${field}`);
  const error = (field: string) => (
    <FieldError id={`${id}-${field}-error`} issues={props.issues} field={`callingWindow.${field}`} />
  );
  return (
    <fieldset class="window-fields">
      <legend>Calling window</legend>
      <label class="check">
        <input type="checkbox" checked={draft.on} onChange={(e) => set({ on: e.currentTarget.checked })} />
        Only call inside a window of local time
      </label>
      {draft.on ? (
        <>
          <fieldset class="days">
            <legend>Days</legend>
            {WEEKDAYS.map((day) => (
              <label key={day} class="check">
                <input
                  type="checkbox"
                  checked={draft.days.includes(day)}
                  onChange={(e) =>
                    set({
                      days: e.currentTarget.checked
                        ? WEEKDAYS.filter((d) => d === day || draft.days.includes(d))
                        : draft.days.filter((d) => d !== day),
                    })
                  }
                />
                {day.charAt(0) + day.slice(1).toLowerCase()}
              </label>
            ))}
            {error('days')}
          </fieldset>
          <div class="field">
            <label for={`${id}-start`}>From (HH:MM)</label>
            <input
              id={`${id}-start`}
              value={draft.start}
              aria-invalid={invalid('start')}
              aria-describedby={`${id}-start-error`}
              onInput={(e) => set({ start: e.currentTarget.value })}
            />
            {error('start')}
          </div>
          <div class="field">
            <label for={`${id}-end`}>Until (HH:MM)</label>
            <input
              id={`${id}-end`}
              value={draft.end}
              aria-invalid={invalid('end')}
              aria-describedby={`${id}-end-error`}
              onInput={(e) => set({ end: e.currentTarget.value })}
            />
            {error('end')}
          </div>
          <div class="field">
            <label for={`${id}-timezone`}>Time zone</label>
            <input
              id={`${id}-timezone`}
              value={draft.timezone}
              aria-invalid={invalid('timezone')}
              aria-describedby={`${id}-timezone-hint ${id}-timezone-error`}
              onInput={(e) => set({ timezone: e.currentTarget.value })}
            />
            <span class="hint" id={`${id}-timezone-hint`}>
              recipient (each contact's own) or an IANA zone such as Europe/Paris
            </span>
            {error('timezone')}
          </div>
          <div class="field">
            <label for={`${id}-fallback`}>Zone for unknown contacts</label>
            <input
              id={`${id}-fallback`}
              value={draft.fallbackTimezone}
              aria-invalid={invalid('fallbackTimezone')}
              aria-describedby={`${id}-fallbackTimezone-error`}
              onInput={(e) => set({ fallbackTimezone: e.currentTarget.value })}
            />
            {error('fallbackTimezone')}
          </div>
        </>
      ) : null}
    </fieldset>
  );
}
