import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api';
import { dateTime, label } from '../format';
import { DataTable, Link, ListStatus, StatusBadge } from '../ui';
import type { Campaign } from './campaigns-model';
import { Pager } from './campaigns-ui';

interface Contact {
  id: string;
  position: number;
  phoneNumber: string | null;
  state: string;
  attempts: number;
  callIds: string[];
  skipReason: string | null;
  failureReason: string | null;
  nextAttemptAt: string | null;
}

const PAGE_SIZE = 25;
const CONTACTS = `query Contacts($id: ID!, $cursor: String) {
  campaign(id: $id) {
    contacts(pageSize: ${PAGE_SIZE}, cursor: $cursor) {
      items { id position phoneNumber state attempts callIds skipReason failureReason nextAttemptAt }
      hasMore nextCursor
    }
  }
}`;

/** Read again at most this often while progress streams in (a page of contacts per change would be wasteful). */
const REFRESH_MS = 1000;

/** The campaign's contacts in list order, a page at a time by cursor, read again as its counts move. */
export function CampaignContacts(props: { campaign: Campaign }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [next, setNext] = useState<string | null>(null);
  const [rows, setRows] = useState<Contact[]>();
  const [error, setError] = useState<string>();
  const last = useRef(0);
  const page = cursors.length - 1;
  const { id, counts, status } = props.campaign;

  const load = () =>
    gql<{ campaign: { contacts: { items: Contact[]; hasMore: boolean; nextCursor: string | null } } | null }>(
      CONTACTS,
      { id, cursor: cursors[page] },
    )
      .then((data) => {
        const contacts = data.campaign?.contacts;
        setRows(contacts?.items ?? []);
        setNext(contacts?.hasMore ? contacts.nextCursor : null);
        setError(undefined);
      })
      .catch((cause: Error) => setError(cause.message));

  useEffect(() => {
    last.current = Date.now();
    void load();
  }, [id, cursors]);

  // Each change of the counts or status reads the page again, no more than once a REFRESH_MS.
  const progress = `${status} ${JSON.stringify(counts)}`;
  useEffect(() => {
    const wait = Math.max(0, last.current + REFRESH_MS - Date.now());
    const timer = setTimeout(() => {
      last.current = Date.now();
      void load();
    }, wait);
    return () => clearTimeout(timer);
  }, [progress]);

  return (
    <article class="card wide" aria-labelledby="contacts-title">
      <h2 id="contacts-title">Contacts</h2>
      <ListStatus rows={rows} error={error} />
      {rows && (
        <DataTable
          testId="contacts"
          class="board"
          contained
          caption="The campaign's contacts in list order"
          columns={['#', 'Number', 'Outcome', 'Attempts', 'Reason', 'Last call']}
        >
          {rows.map((row) => {
            const call = row.callIds.at(-1);
            return (
              <tr key={row.id} data-position={row.position} data-state={row.state}>
                <td data-label="#">{row.position + 1}</td>
                <td data-label="Number">{row.phoneNumber ?? '—'}</td>
                <td data-label="Outcome">
                  <StatusBadge status={row.state} />
                </td>
                <td data-label="Attempts">{row.attempts}</td>
                <td data-label="Reason" data-testid="reason">
                  {reasonOf(row)}
                </td>
                <td data-label="Last call">
                  {call ? (
                    <Link to={`/calls/${call}`}>
                      View call<span class="visually-hidden"> to {row.phoneNumber}</span>
                    </Link>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <Pager
        what="Contact"
        page={page}
        hasMore={next !== null}
        onPrevious={() => setCursors((now) => now.slice(0, -1))}
        onNext={() => setCursors((now) => [...now, next])}
      />
    </article>
  );
}

function reasonOf(row: Contact): string {
  if (row.skipReason) return label(row.skipReason);
  if (row.failureReason) return row.failureReason;
  if (row.state === 'PENDING' && row.nextAttemptAt) return `next try ${dateTime(row.nextAttemptAt)}`;
  return '—';
}
