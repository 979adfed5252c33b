import { Component } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { gql } from '../api';
import type { BoardCall } from '../board-call';
import { BoardStore } from '../board-store';
import { CALL_STATUSES, label, money, seconds, time } from '../format';
import { subscribe } from '../live';
import { DataTable, ErrorNote, Link, StatusBadge } from '../ui';

const FIELDS =
  'id status phoneNumber agentId agentName campaignId createdAt durationSeconds totalCost costCurrency';
const LIST = `query Board($status: CallStatus, $agentId: ID, $campaignId: ID) {
  calls(pageSize: 100, status: $status, agentId: $agentId, campaignId: $campaignId) { items { ${FIELDS} } total }
}`;
const LIVE = `subscription Board($agentId: ID, $campaignId: ID) {
  callStatusChanged(agentId: $agentId, campaignId: $campaignId) { ${FIELDS} }
}`;
const CHOICES = `query BoardChoices {
  agents(pageSize: 100) { items { id name } }
  campaigns(pageSize: 100) { items { id name } }
}`;

/** Rows the board holds: enough for an operator's screen, bounded under any stream. */
const BOARD_ROWS = 200;

interface Filters {
  status: string;
  agentId: string;
  campaignId: string;
}
type Choice = { id: string; name: string };

function readFilters(): Filters {
  const query = new URLSearchParams(location.search);
  return {
    status: query.get('status') ?? '',
    agentId: query.get('agent') ?? '',
    campaignId: query.get('campaign') ?? '',
  };
}

/** Filters live in the address, so a filtered board can be bookmarked and shared. */
function writeFilters(filters: Filters): void {
  const query = new URLSearchParams();
  if (filters.status) query.set('status', filters.status);
  if (filters.agentId) query.set('agent', filters.agentId);
  if (filters.campaignId) query.set('campaign', filters.campaignId);
  const search = query.toString();
  history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}`);
}

/** The account's calls, newest first, kept current by the callStatusChanged subscription. */
export function CallsPage() {
  const [filters, setFilters] = useState<Filters>(readFilters);
  const [rows, setRows] = useState<BoardCall[]>([]);
  const [error, setError] = useState<string>();
  const [live, setLive] = useState<'connecting' | 'live' | 'error'>('connecting');
  const [choices, setChoices] = useState<{ agents: Choice[]; campaigns: Choice[] }>({
    agents: [],
    campaigns: [],
  });

  useEffect(() => {
    gql<{ agents: { items: Choice[] }; campaigns: { items: Choice[] } }>(CHOICES)
      .then((data) => setChoices({ agents: data.agents.items, campaigns: data.campaigns.items }))
      .catch(() => {});
  }, []);

  useEffect(() => {
    writeFilters(filters);
    const board = new BoardStore(BOARD_ROWS, setRows);
    setLive('connecting');
    const scope = {
      ...(filters.agentId ? { agentId: filters.agentId } : {}),
      ...(filters.campaignId ? { campaignId: filters.campaignId } : {}),
    };
    // Subscribed before the list is read, so a change between the two is not missed.
    const stop = subscribe<{ callStatusChanged: BoardCall }>(
      LIVE,
      scope,
      (data) => {
        setLive('live');
        board.put(data.callStatusChanged);
      },
      (message) => {
        setLive('error');
        setError(message);
      },
    );
    gql<{ calls: { items: BoardCall[] } }>(LIST, {
      ...scope,
      ...(filters.status ? { status: filters.status } : {}),
    })
      .then((data) => {
        board.putAll(data.calls.items);
        setLive((state) => (state === 'connecting' ? 'live' : state));
      })
      .catch((cause: Error) => setError(cause.message));
    return () => {
      stop();
      board.clear();
    };
  }, [filters]);

  const shown = useMemo(
    () => (filters.status ? rows.filter((row) => row.status === filters.status) : rows),
    [rows, filters.status],
  );
  const set = (name: keyof Filters) => (event: Event) =>
    setFilters({ ...filters, [name]: (event.currentTarget as HTMLSelectElement).value });

  return (
    <section aria-labelledby="calls-title">
      <div class="title-row">
        <h1 id="calls-title">Live calls</h1>
        <span class={`live-dot ${live}`} role="status" data-testid="live-state">
          {live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting…' : 'Disconnected'}
        </span>
      </div>
      <form class="filters" aria-label="Filter calls" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status
          <select value={filters.status} onChange={set('status')} name="status">
            <option value="">Any status</option>
            {CALL_STATUSES.map((status) => (
              <option key={status} value={status}>
                {label(status)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select value={filters.agentId} onChange={set('agentId')} name="agent">
            <option value="">Any agent</option>
            {choices.agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Campaign
          <select value={filters.campaignId} onChange={set('campaignId')} name="campaign">
            <option value="">Any campaign</option>
            {choices.campaigns.map((campaign) => (
              <option key={campaign.id} value={campaign.id}>
                {campaign.name}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorNote message={error} />
      <p class="hint" aria-live="polite">
        {shown.length} call{shown.length === 1 ? '' : 's'} shown (the newest {BOARD_ROWS} are kept).
      </p>
      <DataTable
        testId="calls-board"
        class="board"
        caption="Calls, newest first"
        columns={['Started', 'Number', 'Agent', 'Status', 'Length', 'Cost']}
      >
        {shown.map((call) => (
          <Row key={call.id} call={call} />
        ))}
      </DataTable>
    </section>
  );
}

/** One call's row: rendered again only when that call changed (the store replaces changed calls). */
class Row extends Component<{ call: BoardCall }> {
  override shouldComponentUpdate(next: { call: BoardCall }): boolean {
    return next.call !== this.props.call;
  }

  override render() {
    const { call } = this.props;
    return (
      <tr data-call-id={call.id} data-status={call.status}>
        <td data-label="Started">{time(call.createdAt)}</td>
        <td data-label="Number">
          <Link to={`/calls/${call.id}`}>{call.phoneNumber}</Link>
        </td>
        <td data-label="Agent">{call.agentName}</td>
        <td data-label="Status">
          <StatusBadge status={call.status} />
        </td>
        <td data-label="Length">{seconds(call.durationSeconds)}</td>
        <td data-label="Cost">{money(call.totalCost, call.costCurrency)}</td>
      </tr>
    );
  }
}
