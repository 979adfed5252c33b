import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { dateTime } from '../format';
import { subscribe } from '../live';
import { DataTable, Link, ListStatus, ListTitle, StatusBadge } from '../ui';
import { CampaignDetail } from './campaigns-detail';
import { type Campaign, COUNT_FIELDS, FINAL_CAMPAIGN } from './campaigns-model';
import { NewCampaign } from './campaigns-new';
import { Pager, ProgressBar } from './campaigns-ui';

type Row = Pick<Campaign, 'id' | 'name' | 'status' | 'counts' | 'createdAt' | 'maxConcurrentCalls'>;

const PAGE_SIZE = 20;
const ROW_FIELDS = `id name status maxConcurrentCalls createdAt ${COUNT_FIELDS}`;
const LIST = `query Campaigns($cursor: String) {
  campaigns(pageSize: ${PAGE_SIZE}, cursor: $cursor) { items { ${ROW_FIELDS} } hasMore nextCursor }
}`;
const PROGRESS = `subscription CampaignRow($id: ID!) { campaignProgress(campaignId: $id) { ${ROW_FIELDS} } }`;

/** The campaign pages: /campaigns, /campaigns/new, /campaigns/<id>. */
export function CampaignsRoute(props: { path: string }) {
  const detail = /^\/campaigns\/([0-9a-f-]{36})$/.exec(props.path);
  if (props.path === '/campaigns/new') return <NewCampaign />;
  if (detail?.[1]) return <CampaignDetail id={detail[1]} />;
  return <CampaignsList />;
}

function CampaignsList() {
  const [rows, setRows] = useState<Row[]>();
  const [error, setError] = useState<string>();
  // cursors[i] opens page i (page 0 has none); the next page's cursor comes with each answer.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [next, setNext] = useState<string | null>(null);
  const page = cursors.length - 1;

  useEffect(() => {
    setRows(undefined);
    gql<{ campaigns: { items: Row[]; hasMore: boolean; nextCursor: string | null } }>(LIST, {
      cursor: cursors[page],
    })
      .then((data) => {
        setRows(data.campaigns.items);
        setNext(data.campaigns.hasMore ? data.campaigns.nextCursor : null);
      })
      .catch((cause: Error) => setError(cause.message));
  }, [cursors]);

  // Each unfinished campaign on the page follows its own progress (one socket carries them all).
  const open = rows?.filter((row) => !FINAL_CAMPAIGN.has(row.status)).map((row) => row.id) ?? [];
  useEffect(() => {
    const stops = open.map((id) =>
      subscribe<{ campaignProgress: Row }>(
        PROGRESS,
        { id },
        ({ campaignProgress: changed }) =>
          setRows((now) => now?.map((row) => (row.id === changed.id ? changed : row))),
        setError,
      ),
    );
    return () => {
      for (const stop of stops) stop();
    };
  }, [open.join(',')]);

  return (
    <section aria-labelledby="campaigns-title">
      <ListTitle id="campaigns-title" title="Campaigns" newTo="/campaigns/new" newLabel="New campaign" />
      {/* A later page found empty (its campaigns deleted meanwhile) says nothing: the pager is there. */}
      <ListStatus rows={rows} error={error} empty={page === 0 ? 'No campaigns yet.' : undefined} />
      {rows && rows.length > 0 && (
        <DataTable
          testId="campaigns-list"
          class="board"
          contained
          caption="The account's campaigns, newest first"
          columns={['Name', 'Status', 'Progress', 'In flight', 'Created']}
        >
          {rows.map((row) => (
            <tr key={row.id} data-campaign-id={row.id} data-status={row.status}>
              <td data-label="Name">
                <Link to={`/campaigns/${row.id}`}>{row.name}</Link>
              </td>
              <td data-label="Status">
                <StatusBadge status={row.status} />
              </td>
              <td data-label="Progress" class="progress-cell">
                <ProgressBar counts={row.counts} label={`${row.name} progress`} compact />
              </td>
              <td data-label="In flight">
                {row.counts.inProgress} / {row.maxConcurrentCalls}
              </td>
              <td data-label="Created">{dateTime(row.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {(page > 0 || next) && (
        <Pager
          what="Campaign"
          page={page}
          hasMore={next !== null}
          onPrevious={() => setCursors((now) => now.slice(0, -1))}
          onNext={() => setCursors((now) => [...now, next])}
        />
      )}
    </section>
  );
}
